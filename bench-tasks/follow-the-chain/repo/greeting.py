from style import decorate


def greet(name: str) -> str:
    return decorate(f"Hello, {name}")
