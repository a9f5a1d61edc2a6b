import text_tools


def summary(title: str, body: str) -> str:
    return f"{title}: {text_tools.clip(body, 20)}"
