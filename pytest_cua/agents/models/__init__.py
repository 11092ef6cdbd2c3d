"""Model-backed agents: real models over the vendors' official SDKs (``pip install pytest-cua[models]``).

A model agent is a *style* times a *vendor adapter*:

* the style owns the prompt, the tools and the coordinate space: ``browser`` (set-of-marks screenshot and the
  element list, function tools that are our typed actions by element id) or ``computer`` (screenshot only,
  pixel coordinates through the vendor's computer-use tool, or a VLM's text grammar);
* the adapter owns the wire format, the usage and the retries: OpenAI Responses, OpenAI-compatible chat
  completions, Anthropic Messages.

Modules: ``agent`` (the model-backed agent: a style over an adapter), ``conversation`` (the vendor-neutral
turns and replies styles and adapters exchange), ``options`` (command-line options and ini keys), ``settings``
(their resolution), ``coords`` (coordinate spaces), ``images`` (screenshot scaling and vendor limits),
``elements`` (the element list), ``pricing`` (usage normalisation and the dated price table), ``ledger`` (the
run's cost ledger shared by xdist workers), ``retry`` (backoff within a budget), and ``providers`` (the
``pytest_cua.agents`` entry points and model aliases). Packages: ``adapters`` (one per wire protocol),
``styles`` (browser, computer, vlm), ``vlm`` (UI-TARS, OpenCUA and Qwen2.5-VL text grammars, a module per model
family) and ``traffic`` (record and replay of model traffic through a loopback proxy: keys, recordings,
credentials, the HTTP server and the proxy). Nothing a model writes is executed: it is parsed into typed
actions.

May import the core modules, the task model (``tasks.task``), ``tasks``, ``orgs``, ``envs`` and the rest of
``agents`` (``base``, ``registry``, ``action_parser``, ``prompts``). Never ``episode``, ``results`` nor the
wiring (``plugin``, ``fixtures``, ``cli``, ``testing``).
"""
