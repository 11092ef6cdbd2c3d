"""Model-backed agents: real models over the vendors' official SDKs (``pip install pytest-cua[models]``).

A model agent is a *style* times a *vendor adapter*:

* the style owns the prompt, the tools and the coordinate space: ``browser`` (set-of-marks screenshot and the
  element list, function tools that are our typed actions by element id) or ``computer`` (screenshot only,
  pixel coordinates through the vendor's computer-use tool, or a VLM's text grammar);
* the adapter owns the wire format, the usage and the retries: OpenAI Responses, OpenAI-compatible chat
  completions, Anthropic Messages.

Modules: ``options`` (command-line options and ini keys), ``settings`` (their resolution), ``coords``
(coordinate spaces), ``images`` (screenshot scaling and vendor limits), ``elements`` (the element list),
``pricing`` (usage normalisation and the dated price table), ``ledger`` (the run's cost ledger shared by xdist
workers), ``retry`` (backoff within a budget), ``traffic`` (record and replay of model traffic through a
loopback proxy), ``vlm`` (UI-TARS, OpenCUA and Qwen2.5-VL text grammars), ``adapters`` and ``styles``, and
``providers`` (the ``pytest_cua.agents`` entry points and model aliases). Nothing a model writes is executed:
it is parsed into typed actions.
"""
