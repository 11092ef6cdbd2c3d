"""Test helpers for pytest-cua and its users.

Modules: ``fake_models`` (a package: fake OpenAI and Anthropic APIs on loopback), ``sfcli`` (the Salesforce CLI
with a private state folder per client), ``scuba_parity`` (SCUBA's own evaluation, unchanged, for the parity
harness).

May import anything in ``pytest_cua`` (it is part of the wiring layer); its modules import only the core modules
and ``agents.models``, and nothing in ``pytest_cua`` imports them.
"""
