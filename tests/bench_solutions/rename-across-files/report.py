import pricing


def summary(prices: list[float]) -> str:
    return f"{len(prices)} items, {pricing.compute_total(prices, 0.0)} before tax"
