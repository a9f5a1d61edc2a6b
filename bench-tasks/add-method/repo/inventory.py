"""Stock of a small shop."""


class Inventory:
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, item: str, count: int = 1) -> None:
        if count <= 0:
            raise ValueError("count must be positive")
        self.counts[item] = self.counts.get(item, 0) + count

    def total(self) -> int:
        """How many pieces are in stock, all items together."""
        return sum(self.counts.values())
