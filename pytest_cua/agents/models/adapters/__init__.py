"""Vendor adapters: one per wire protocol (OpenAI Responses, OpenAI-compatible chat completions, Anthropic
Messages). An adapter owns the conversation in its wire format, the image pruning, the usage and the retries."""
