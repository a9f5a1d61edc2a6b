"""What a request cost: USD per million tokens from config `pricing:` or the provider table.

Prices are looked up by model name (`openai/gpt-4o-mini` on OpenRouter also finds
`gpt-4o-mini`); a model on this machine costs nothing; anything else is unknown (None), and
front-ends say "cost unknown" rather than guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Price:
    input: float
    cached_input: float
    output: float
    """USD per million tokens."""

    def cost(self, prompt: int, completion: int, cached: int = 0) -> float:
        cached = min(max(cached, 0), prompt)
        return (
            (prompt - cached) * self.input + cached * self.cached_input + completion * self.output
        ) / 1_000_000


FREE = Price(0.0, 0.0, 0.0)


def price_for(model: str, base_url: str, configured: dict[str, Any] | None = None) -> Price | None:
    """The price of `model` at `base_url`: configured, a local server (free), the table."""
    from zen.settings.providers import PRICES, is_local

    names = [model]
    if "/" in model:
        names.append(model.rsplit("/", 1)[1])
    for name in names:
        entry = (configured or {}).get(name)
        if entry is not None:
            cached = entry.cached_input if entry.cached_input is not None else entry.input
            return Price(entry.input, cached, entry.output)
    if is_local(base_url):
        return FREE
    for name in names:
        if name in PRICES:
            return Price(*PRICES[name])
    return None


def usd(amount: float | None) -> str:
    """`$0.0123`, `$1.24`; `cost unknown` for None."""
    if amount is None:
        return "cost unknown"
    if amount == 0:
        return "$0"
    return f"${amount:.4f}" if amount < 1 else f"${amount:.2f}"
