"""The shop's HTTP API."""

import json
import urllib.request

from shop import settings


def get(path: str) -> dict:
    """GET `path` of the API, retried on network errors."""
    url = f"{settings.API_URL}/{path.lstrip('/')}?limit={settings.PAGE_SIZE}"
    for attempt in range(settings.RETRIES + 1):
        try:
            with urllib.request.urlopen(url, timeout=settings.WAIT) as response:
                return json.load(response)
        except OSError:
            if attempt == settings.RETRIES:
                raise
    raise AssertionError("unreachable")
