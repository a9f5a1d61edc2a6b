"""Print the settings of one environment: python deploy.py production"""

import json
import sys
from pathlib import Path

ENVIRONMENTS = json.loads(Path("config/environments.json").read_text(encoding="utf-8"))

if __name__ == "__main__":
    name = sys.argv[1] if len(sys.argv) > 1 else "development"
    for key, value in ENVIRONMENTS[name].items():
        print(f"{key} = {value}")
