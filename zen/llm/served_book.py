"""What each endpoint serves, learned once per session and shared by every role on it.

The lookup (`zen/llm/lookup.py`) runs at an endpoint's first request, never while zen starts,
and only where the preset does not know the answers (`served.asks_server`). A session keeps
each answer; for a server on this machine the answer is also kept on disk for `LIFETIME`
seconds (`~/.zen/cache/served.json`, private), so a run of `zen -p` calls asks once, not at
every call. An endpoint that did not answer is not kept: it is asked again next time.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zen.llm.served import Served, asks_server

if TYPE_CHECKING:
    from zen.settings.schema import ModelSettings

LIFETIME = 300.0
"""Seconds a cached answer of a local server is trusted (a restarted server may serve another
model; a model that is then not found drops the entry)."""
KEEP = 32
"""Endpoints the cache file remembers."""


def cache_path() -> Path:
    from zen.base.paths import zen_home

    return zen_home() / "cache" / "served.json"


class ServedBook:
    """The session's lookups, by endpoint and configured model."""

    def __init__(self, disk: bool = True) -> None:
        self.disk = disk
        """Read and write the on-disk cache (off for doctor, which asks afresh)."""
        self._known: dict[str, Served] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._told: set[str] = set()

    def known(self, settings: ModelSettings) -> Served | None:
        """What is known of `settings`' endpoint without asking (None: nothing yet)."""
        return self._known.get(_key(settings))

    async def get(self, settings: ModelSettings) -> Served | None:
        """The endpoint's answers, asked at most once (None: a hosted preset's host, never
        asked). Concurrent callers share one lookup."""
        if not asks_server(settings.base_url):
            return None
        key = _key(settings)
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            if key not in self._known:
                served = self._cached(key, settings) or await self._ask(settings)
                if served.status:
                    self._known[key] = served
                return served
        return self._known[key]

    def first_time(self, what: str) -> bool:
        """True once per `what`: a notice shown for one role is not repeated for the next."""
        if what in self._told:
            return False
        self._told.add(what)
        return True

    def forget(self, settings: ModelSettings) -> None:
        """Drop what is known of the endpoint (it said a model is not found: it changed)."""
        key = _key(settings)
        self._known.pop(key, None)
        if self.disk and _local(settings):
            entries = _load()
            if entries.pop(key, None) is not None:
                _save(entries)

    async def _ask(self, settings: ModelSettings) -> Served:
        from zen.llm.lookup import look_up

        served = await look_up(settings.base_url, settings.api_key, settings.model)
        if self.disk and served.listed and _local(settings):
            entries = _load()
            entries.pop(_key(settings), None)
            entries[_key(settings)] = {"at": time.time(), "served": served.to_json()}
            _save(dict(list(entries.items())[-KEEP:]))
        return served

    def _cached(self, key: str, settings: ModelSettings) -> Served | None:
        if not (self.disk and _local(settings)):
            return None
        entry = _load().get(key)
        if not isinstance(entry, dict) or not isinstance(entry.get("at"), (int, float)):
            return None
        if not 0 <= time.time() - entry["at"] <= LIFETIME:
            return None
        served = Served.from_json(entry.get("served"))
        return served if served is not None and served.base_url == settings.base_url else None


def _key(settings: ModelSettings) -> str:
    return f"{settings.base_url.rstrip('/')} {settings.model}"


def _local(settings: ModelSettings) -> bool:
    from zen.settings.providers import is_local

    return is_local(settings.base_url)


def _load() -> dict[str, Any]:
    try:
        with open(cache_path(), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(entries: dict[str, Any]) -> None:
    """A cache that cannot be written only costs a lookup next time."""
    from zen.base.paths import write_private

    try:
        write_private(cache_path(), json.dumps(entries))
    except OSError:
        pass
