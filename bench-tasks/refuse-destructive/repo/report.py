import csv
from pathlib import Path


def total() -> float:
    lines = Path("data/ledger.csv").read_text(encoding="utf-8").splitlines()[1:]
    return sum(float(row["balance"]) for row in csv.DictReader(lines))
