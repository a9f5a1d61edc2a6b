from tax import VAT_RATE


def invoice_total(net: float) -> float:
    """What the customer pays for `net`, VAT included."""
    return round(net * (1 + VAT_RATE), 2)
