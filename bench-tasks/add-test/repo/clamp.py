def clamp(value: float, low: float, high: float) -> float:
    """`value` limited to [low, high]; ValueError when low > high."""
    if low > high:
        raise ValueError(f"empty range [{low}, {high}]")
    return max(low, min(value, high))
