"""Where the app listens."""

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080


def host() -> str:
    return DEFAULT_HOST


def port() -> int:
    return DEFAULT_PORT
