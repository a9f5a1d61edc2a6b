def normalize(name: str) -> str:
    """Trim, collapse inner spaces and lower-case a name."""
    return " ".join(name.split()).lower()


def team_members(names: list[str]) -> list[str]:
    return sorted({normalize(n) for n in names})
