def quote_line(item: str, net: float) -> str:
    vat = net * 0.2
    return f"{item}: {net:.2f} + {vat:.2f} VAT"
