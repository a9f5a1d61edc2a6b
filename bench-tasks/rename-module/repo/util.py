"""Small helpers for text."""


def slug(title: str) -> str:
    return "-".join(title.lower().split())


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
