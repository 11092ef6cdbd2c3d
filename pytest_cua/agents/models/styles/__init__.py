"""Agent styles: what the model sees and how it acts.

Modules: ``base`` (the ``Style`` interface: turns, replies, screen size), ``browser`` (element ids through
function tools), ``computer`` (pixels through the vendor's computer tool), ``vlm`` (pixels through an open
model's text grammar, ``agents.models.vlm``).

May import the core modules, the task model (``tasks.task``), ``agents.base``, ``agents.action_parser``,
``agents.prompts`` and the other modules of ``agents.models`` (adapters included). Never ``episode``,
``results`` nor the wiring.
"""
