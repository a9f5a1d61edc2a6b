"""What one streamed model turn produces, independent of the wire format."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from zen.base.events import Emit


class LLMError(Exception):
    """A model/API failure retrying cannot fix (401, unknown model, context too long...).

    The message is one clear line for the user; front-ends print it and exit 1.
    """


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str
    """The raw JSON text the model sent; parsed (and judged) by the tool registry."""
    origin: str = "native"
    """"text": recovered from a reply's text (`protocols/written_calls.py`), not sent as a call."""

    def to_message(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass
class TokenUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    requests: int = 0
    estimated: bool = False
    """Some of these counts are zen's estimate (the server sent no usage): show them as `~`."""
    cost_usd: float | None = 0.0
    """USD so far; None once a request of unknown price was counted."""

    def add(self, other: TokenUsage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cached_tokens += other.cached_tokens
        self.requests += other.requests
        self.estimated = self.estimated or other.estimated
        self.cost_usd = (
            None
            if self.cost_usd is None or other.cost_usd is None
            else self.cost_usd + other.cost_usd
        )

    def to_json(self) -> dict[str, int | bool | float | None]:
        out: dict[str, int | bool | float | None] = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
            "requests": self.requests,
        }
        if self.estimated:
            out["estimated"] = True
        out["cost_usd"] = None if self.cost_usd is None else round(self.cost_usd, 6)
        return out


@dataclass
class AssistantTurn:
    content: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str = ""
    usage: TokenUsage = field(default_factory=TokenUsage)

    def to_message(self, echo_reasoning: bool) -> dict[str, Any]:
        """The assistant message to append to the conversation.

        `echo_reasoning`: DeepSeek's thinking mode answers 400 unless an assistant turn with
        tool calls carries its `reasoning_content` back (an empty string if there was none).
        """
        message: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            message["tool_calls"] = [c.to_message() for c in self.tool_calls]
            if echo_reasoning:
                message["reasoning_content"] = self.reasoning
        if message["content"] is None and not self.tool_calls:
            message["content"] = ""
        return message


class ChatModel(Protocol):
    """The seam an agent streams its turns through: `ChatClient` on a real endpoint, or a
    scripted model in-process (`tests/fakes/scripted.py`, unit tests only)."""

    echo_reasoning: bool
    """Send `reasoning_content` back on assistant turns with tool calls."""

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], emit: Emit, agent: str
    ) -> AssistantTurn:
        """One assistant turn for `messages` with `tools` on the wire; events go to `emit`,
        marked with `agent`."""
        ...

    async def aclose(self) -> None:
        """Close its connections."""
        ...
