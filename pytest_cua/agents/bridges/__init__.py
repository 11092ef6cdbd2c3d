"""Bridges: the field's own agents run unchanged through pytest-cua. A bridge loads a foreign agent, shows it each
observation in the form it reads, turns its answers into typed actions with our action parser (never running
them) and counts its model calls through the model agents' record-and-replay proxy.

Modules: ``osworld`` (``--agent osworld:package.module:Class``: agents of OSWorld's ``predict(instruction, obs)``
convention), ``scuba`` (``--agent scuba:NAME``: SCUBA's released agents from its checkout; ``scuba_agents`` builds
and calls each as SCUBA's runner does, ``scuba_release`` finds the checkout, reads its ``args.py`` and imports its
modules, ``scuba_ray`` is SCUBA's Ray service for OpenCUA over an OpenAI-compatible server), ``agent_s``
(``--agent agent-s``: Agent S2.5 of ``gui-agents``), ``pyautogui_forms`` (the forms those agents write around their
pyautogui code, read before the action parser), ``loading`` (a class by ``package.module:Class``, its
constructor's arguments from ``--cua-agent-option``, the frame an agent raised in) and ``metering`` (the proxy that
tags, counts, records and replays a bridged agent's model calls, and the environment variables that point its SDK
there).

May import the core modules, the task model (``tasks.task``) and the rest of ``agents`` (``base``,
``action_parser``, ``models``). Never ``episode``, ``results`` nor the wiring (``plugin``, ``fixtures``, ``cli``,
``testing``).
"""
