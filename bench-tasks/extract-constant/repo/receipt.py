def vat_part(gross: float) -> float:
    """The VAT inside a price that includes it."""
    return round(gross - gross / 1.2, 2)
