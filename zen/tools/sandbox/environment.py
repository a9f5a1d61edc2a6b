"""The environment a sandboxed command gets: an allow-list, not a deny-list.

A deny-list of name patterns missed `PGPASSWORD`, `DATABASE_URL=postgres://u:pw@h/db`,
`MYSQL_PWD`, `GITHUB_PAT`, `SENTRY_DSN`, `OPENAI_APIKEY`, `PASSWORD` and `APIKEY`: secrets have
no naming rule. So only PASSED_ENV and the user's own `sandbox_options.env` pass; `hidden_env`
removes names even from those; a pattern the user adds never passes a name SECRET_ENV calls
secret (an exact name does: the user asked for it); zen's key variables pass only when
`bash_inherits_keys` puts them in `keep`.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Mapping, Sequence

from zen.settings.sandbox_options import PASSED_ENV, SECRET_ENV, SandboxOptions


def allowed(
    environ: Mapping[str, str], options: SandboxOptions, keep: frozenset[str] = frozenset()
) -> dict[str, str]:
    """The variables of `environ` a sandboxed command gets."""
    own = [p.upper() for p in options.env]
    exact = {p for p in own if not any(c in p for c in "*?[")}
    passed = _pattern([*PASSED_ENV, *own])
    never = _pattern(options.hidden_env)
    secret = _pattern(SECRET_ENV)
    out: dict[str, str] = {}
    for name, value in environ.items():
        up = name.upper()
        if name not in keep:
            if never.match(up) or not passed.match(up):
                continue
            if up not in exact and secret.match(up):
                continue
        out[name] = value
    return out


def _pattern(patterns: Sequence[str]) -> re.Pattern[str]:
    """One regular expression for fnmatch `patterns`, matched against upper-cased names."""
    return _compiled(tuple(patterns))


@functools.lru_cache(maxsize=16)
def _compiled(patterns: tuple[str, ...]) -> re.Pattern[str]:
    if not patterns:
        return re.compile(r"(?!)")
    return re.compile("|".join(fnmatch.translate(p.upper()) for p in patterns))
