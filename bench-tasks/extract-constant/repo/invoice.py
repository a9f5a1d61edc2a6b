def invoice_total(net: float) -> float:
    """What the customer pays for `net`, VAT included."""
    return round(net * (1 + 0.2), 2)
