"""Where the app listens."""

import os

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080


def host() -> str:
    return DEFAULT_HOST


def port() -> int:
    value = os.environ.get("APP_PORT")
    return int(value) if value else DEFAULT_PORT
