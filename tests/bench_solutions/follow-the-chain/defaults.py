DEFAULT_TONE = "excited"
DEFAULT_NAME = "world"
