from names import normalize


def team_members(names: list[str]) -> list[str]:
    return sorted({normalize(n) for n in names})
