"""ProSoftArena's observation settings: which observation kinds a model agent is given and what its prompt
then holds. A setting is written as its kinds joined with ``+`` and given with ``--cua-observe``:

| setting | kinds | what the model is sent at each step |
| --- | --- | --- |
| ``screenshot`` | screenshot | the screenshot (computer style: pixels) |
| ``screenshot+axtree`` | screenshot, axtree | the screenshot and the accessibility tree's text, ids in it |
| ``som`` | som | the set-of-marks image (boxes numbered from the tree) and the list of the marked elements |
| ``som+vision`` | som, vision | the same, with marks a vision detector found in windows without a tree |
| ``som+screenshot`` | som, screenshot | the set-of-marks image, the plain screenshot and the list |
| ``som+screenshot+axtree`` | som, screenshot, axtree | both images and the accessibility tree's text |

Other combinations are allowed (``som+screenshot+axtree+vision``); their name is their kinds in the order
``som, screenshot, axtree, dom, vision``. Without ``--cua-observe`` a style shows what it always has (the
browser style: the set-of-marks image and the element list; the computer style: the screenshot) and the
setting is recorded as that style's default. ``check_style`` refuses a setting the style cannot act in
(element ids need a tree or marks; the computer styles act in pixels on a screenshot).
"""

from __future__ import annotations

from typing import Iterable

#: the named settings of ProSoftArena, in its order
SETTINGS: dict[str, frozenset[str]] = {
    "screenshot": frozenset({"screenshot"}),
    "screenshot+axtree": frozenset({"screenshot", "axtree"}),
    "som": frozenset({"som"}),
    "som+vision": frozenset({"som", "vision"}),
    "som+screenshot": frozenset({"som", "screenshot"}),
    "som+screenshot+axtree": frozenset({"som", "screenshot", "axtree"}),
}
ORDER = ("som", "screenshot", "axtree", "dom", "vision")
#: kinds that give the model element ids to act on
ID_KINDS = frozenset({"axtree", "dom", "som", "vision"})


def setting_name(kinds: Iterable[str]) -> str:
    """The setting's name: its kinds in ``ORDER`` joined with ``+`` (``som+screenshot+axtree``)."""
    chosen = set(kinds)
    return "+".join([k for k in ORDER if k in chosen] + sorted(chosen - set(ORDER)))


def check_style(kinds: frozenset[str], style: str, *, pixels: bool) -> str | None:
    """Why the ``style`` (``pixels``: it acts by screen coordinates) cannot work under ``kinds``; None when it
    can. The message names the option and its value."""
    value = setting_name(kinds)
    if pixels:
        if kinds & {"som", "vision"}:
            return (f"--cua-observe {value}: the {style} style acts in pixels and is sent the screenshot only; "
                    f"set-of-marks settings need --cua-agent-style browser (element ids)")
        if "screenshot" not in kinds:
            return (f"--cua-observe {value}: the {style} style acts in pixels on the screenshot; add screenshot "
                    f"(screenshot, screenshot+axtree)")
        return None
    if not kinds & ID_KINDS:
        return (f"--cua-observe {value}: the {style} style acts on element ids and this setting gives none; add "
                f"axtree or som, or use --cua-agent-style computer (pixels)")
    return None


def describe_setting(kinds: Iterable[str], explicit: bool) -> dict[str, object]:
    """What a record says about the setting: its name, its kinds, and whether ``--cua-observe`` chose it."""
    chosen = frozenset(kinds)
    return {"setting": setting_name(chosen), "kinds": [k for k in ORDER if k in chosen] + sorted(chosen - set(ORDER)),
            "named": setting_name(chosen) in SETTINGS, "explicit": explicit}
