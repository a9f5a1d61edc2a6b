"""Small statistics helpers."""


def mean(values: list[float]) -> float:
    """The arithmetic mean of a non-empty list."""
    return sum(values) / len(values)


def spread(values: list[float]) -> float:
    return max(values) - min(values)
