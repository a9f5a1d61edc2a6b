"""Stock of a small shop."""


class Inventory:
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, item: str, count: int = 1) -> None:
        if count <= 0:
            raise ValueError("count must be positive")
        self.counts[item] = self.counts.get(item, 0) + count

    def remove(self, item: str, count: int = 1) -> None:
        have = self.counts.get(item, 0)
        if count > have:
            raise ValueError(f"only {have} of {item} in stock")
        if count == have:
            del self.counts[item]
        else:
            self.counts[item] = have - count

    def total(self) -> int:
        """How many pieces are in stock, all items together."""
        return sum(self.counts.values())
