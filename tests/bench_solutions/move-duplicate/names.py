def normalize(name: str) -> str:
    return " ".join(name.split()).lower()
