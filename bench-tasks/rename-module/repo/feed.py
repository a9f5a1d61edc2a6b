import util


def summary(title: str, body: str) -> str:
    return f"{title}: {util.clip(body, 20)}"
