"""Bridges: the field's own agents run unchanged through pytest-cua. A bridge loads a foreign agent, shows it each
observation in the form it reads, turns its answers into typed actions with our action parser (never running
them) and counts its model calls through the model agents' record-and-replay proxy.

Modules: ``osworld`` (``--agent osworld:package.module:Class``: agents of OSWorld's ``predict(instruction, obs)``
convention), ``loading`` (a class by ``package.module:Class``, its constructor's arguments from
``--cua-agent-option``, the frame an agent raised in) and ``metering`` (the proxy that tags, counts, records and
replays a bridged agent's model calls, and the environment variables that point its SDK there).

May import the core modules, the task model (``tasks.task``) and the rest of ``agents`` (``base``,
``action_parser``, ``models``). Never ``episode``, ``results`` nor the wiring (``plugin``, ``fixtures``, ``cli``,
``testing``).
"""
