"""Evaluator kinds of the ProSoft suite beyond the first four (``templates.py``): each module here holds a
dict ``KINDS`` of kind name -> ``checks(ctx, truth) -> [(label, check)]``; ``templates.py`` registers them all
(a kind defined twice is an error at import)."""
