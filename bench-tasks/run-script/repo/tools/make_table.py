"""Write TABLE.md from prices.json (run from the project's root)."""

import hashlib
import json
from pathlib import Path

prices = json.loads(Path("prices.json").read_text(encoding="utf-8"))
lines = ["| item | price | code |", "|---|---|---|"]
for item in sorted(prices):
    code = hashlib.sha256(f"{item}:{prices[item]}".encode()).hexdigest()[:4]
    lines.append(f"| {item} | {prices[item]:.2f} | {code} |")
Path("TABLE.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
