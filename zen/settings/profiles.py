"""Model profiles: the settings that work for a model family and size, used where the user set
none (`config/profiles.yaml`, extended by `model_profiles:` in the config).

A profile is chosen by what the endpoint lookup learned (`zen/llm/served.py`: family and size
from the served id, llama.cpp's `/props`, Ollama's `/api/show`), so a server can name its
model anything: a profile may only pick how the model is talked to (tool protocol) and sampled
(temperature, output cap), never a permission, a sandbox rule or the agent mode. Pure
functions and one cached file read.
"""

from __future__ import annotations

import functools
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator


class Profile(BaseModel):
    """One row: a family and size range, and the settings that go with them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    family: str = Field(min_length=1, max_length=100)
    min_b: float | None = Field(default=None, ge=0)
    """Smallest size matched, in billions of parameters (inclusive)."""
    max_b: float | None = Field(default=None, ge=0)
    """Largest size matched (inclusive)."""
    tool_protocol: Literal["native", "text"] | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=0)
    measured: str | Literal[False] = False
    """What the row rests on (model, server, figures), or false: nobody measured it."""

    @field_validator("family")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.strip().lower()

    def matches(self, family: str | None, params_b: float | None) -> bool:
        """`family` is this row's and the size is in its range (a range needs a known size)."""
        if family is None or family.lower() != self.family:
            return False
        if self.min_b is None and self.max_b is None:
            return True
        if params_b is None:
            return False
        return (self.min_b is None or params_b >= self.min_b) and (
            self.max_b is None or params_b <= self.max_b
        )

    def describe(self) -> str:
        """`qwen2.5-coder 1-2B: text, temperature 0 (measured)`."""
        low, high = self.min_b, self.max_b
        size = "" if low is None and high is None else f" {_b(low) or '0'}-{_b(high) or '…'}B"
        what = [
            *([self.tool_protocol] if self.tool_protocol else []),
            *([f"temperature {self.temperature:g}"] if self.temperature is not None else []),
            *([f"max_tokens {self.max_tokens}"] if self.max_tokens is not None else []),
        ]
        return f"{self.family}{size}: {', '.join(what) or 'nothing'} " + (
            "(measured)" if self.measured else "(not measured)"
        )


def _b(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


@functools.cache
def shipped() -> tuple[Profile, ...]:
    """zen's own table (`config/profiles.yaml`)."""
    import yaml

    from zen.settings.prompts import data_dir

    path = data_dir("config") / "profiles.yaml"
    rows = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    try:
        return tuple(Profile.model_validate(row) for row in rows)
    except ValidationError as e:  # zen's own file, changed where it was installed
        raise ValueError(f"{path}: {e.errors()[0]['msg']}") from None


def pick(own: list[Profile], family: str | None, params_b: float | None) -> Profile | None:
    """The first row of the user's (`own`), then zen's, that matches the model."""
    return next((p for p in (*own, *shipped()) if p.matches(family, params_b)), None)
