"""Vendor adapters: one per wire protocol. An adapter owns the conversation in its wire format, the image pruning,
the usage and the retries.

Modules: ``base`` (the ``Adapter`` interface, SDK clients, usage and retries shared by all), ``openai_responses``
(OpenAI Responses), ``openai_chat`` (OpenAI-compatible chat completions), ``anthropic_messages`` (Anthropic
Messages).

May import the core modules, ``agents.base`` and the other modules of ``agents.models``; not the styles. Never
``episode``, ``results`` nor the wiring.
"""
