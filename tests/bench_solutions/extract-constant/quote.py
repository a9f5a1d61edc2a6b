from tax import VAT_RATE


def quote_line(item: str, net: float) -> str:
    vat = net * VAT_RATE
    return f"{item}: {net:.2f} + {vat:.2f} VAT"
