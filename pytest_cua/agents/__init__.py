"""Agents: the Agent protocol and its data (``base``: ``Agent``, ``Turn``, ``Usage``, ``AgentContext``), agents
by name (``registry``: the ``pytest_cua.agents`` entry points), the built-in agents (``builtin``: ``noop``,
``replay``, ``oracle``), reading an agent's raw output as typed actions (``action_parser``), semantic targets of
demonstrations (``locators``), the model-backed agents (``models``) and their prompts (``prompts``), and published agents run unchanged
(``bridges``: OSWorld's ``predict`` convention).

May import the core modules, ``tasks``, ``orgs`` and ``envs``. Not ``episode``, ``results`` nor the wiring.
"""

from __future__ import annotations
