"""Find and read the markdown prompts and the default config that ship with zen.

In a source checkout they sit at the top of the repository (`prompts/`, `config/`); in an
installed wheel they are packaged as `zen/_data/`. This module is the one place that knows.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


@cache
def data_dir(name: str) -> Path:
    """`prompts` or `config`: the packaged copy if installed, else the checkout's."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"zen's {name}/ folder is missing from the installation")


@cache
def load_prompt(name: str) -> str:
    """The text of `prompts/<name>.md`, without its trailing newline."""
    return (data_dir("prompts") / f"{name}.md").read_text(encoding="utf-8").strip()


def tool_description(tool: str) -> str:
    return load_prompt(f"tools/{tool}")


@cache
def tool_names() -> tuple[str, ...]:
    """Every tool zen ships, by name: each has its description in `prompts/tools/<name>.md`.

    Plain data below the tools, for settings to check `permissions` against (settings may not
    import a tool); `zen/tools/catalog.py` finds each one's class by the same name."""
    return tuple(sorted(p.stem for p in (data_dir("prompts") / "tools").glob("*.md")))


def render(template: str, **values: str) -> str:
    """Fill `{name}` placeholders; a placeholder with no value is an error, never a blank."""
    return template.format_map(_Strict(values))


class _Strict(dict[str, object]):
    def __missing__(self, key: str) -> str:
        raise KeyError(f"prompt placeholder {{{key}}} has no value")
