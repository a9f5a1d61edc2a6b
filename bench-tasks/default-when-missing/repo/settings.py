"""The user's settings, from a JSON file."""

import json
from pathlib import Path

DEFAULTS = {"theme": "light", "font_size": 12}


def load_settings(path: Path) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)
