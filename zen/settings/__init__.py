"""Settings: the config schema and its layered loading, providers, prompts, trust, extensions."""
