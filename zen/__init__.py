"""zen: a terminal coding agent for any OpenAI-compatible model."""

__version__ = "0.2.0"
