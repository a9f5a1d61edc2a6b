from names import normalize


def user_key(name: str, domain: str) -> str:
    return f"{normalize(name)}@{domain}"
