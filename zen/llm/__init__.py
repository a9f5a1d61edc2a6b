"""Talking to OpenAI-compatible endpoints: streaming, accumulation, retries, provider habits."""
