from tax import VAT_RATE


def vat_part(gross: float) -> float:
    """The VAT inside a price that includes it."""
    return round(gross - gross / (1 + VAT_RATE), 2)
