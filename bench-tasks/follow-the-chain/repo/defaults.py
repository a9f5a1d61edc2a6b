DEFAULT_TONE = "calm"
DEFAULT_NAME = "world"
