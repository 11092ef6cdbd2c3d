"""Test helpers for pytest-cua and its users: ``fake_models`` serves fake OpenAI and Anthropic APIs on loopback."""
