"""Prices of a cart."""


def calc_total(prices: list[float], tax_rate: float) -> float:
    return round(sum(prices) * (1 + tax_rate), 2)
