from marks import closing


def decorate(text: str) -> str:
    return text + closing()
