"""Orders of the web shop."""

from dataclasses import dataclass
from datetime import date


@dataclass
class Order:
    id: int
    customer: str
    total: float
    placed: date


SAMPLE = [
    Order(1, "Ada", 12.5, date(2024, 3, 1)),
    Order(2, "Grace", 7.0, date(2024, 3, 9)),
]
