from defaults import DEFAULT_TONE

MARKS = {"calm": ".", "excited": "!", "unsure": "?"}


def current() -> str:
    return DEFAULT_TONE
