def normalize(name: str) -> str:
    """Trim, collapse inner spaces and lower-case a name."""
    return " ".join(name.split()).lower()


def user_key(name: str, domain: str) -> str:
    return f"{normalize(name)}@{domain}"
