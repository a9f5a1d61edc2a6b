"""Fuzzing the edges where untrusted bytes enter: the stream parser and the tool registry.

Whatever a server sends, the parser either builds a turn or raises `Malformed`/`StreamError`
(which the client turns into a retry, then one line); whatever arguments a model writes, the
registry returns a result. No other exception may escape, ever.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zen.llm.accumulator import StreamAccumulator, StreamError, completion_as_chunk
from zen.llm.sse import DONE, Malformed, SseDecoder, parse_payload
from zen.llm.types import ToolCall
from zen.stores.memo import MemoStore
from zen.stores.read_tracker import ReadTracker
from zen.stores.todo import TodoStore
from zen.tools.base import ToolContext, refuse_all
from zen.tools.catalog import builtin_tools
from zen.tools.registry import ToolRegistry
from zen.tools.workspace import Workspace

EXPECTED = (Malformed, StreamError)
text = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
scalars = st.none() | st.booleans() | st.integers(-5, 2**70) | st.floats() | text
json_values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(text, kids, max_size=4),
    max_leaves=20,
)


def maybe(strategy: Any) -> Any:
    return st.one_of(strategy, json_values)


tool_delta = st.fixed_dictionaries(
    {},
    optional={
        "index": maybe(st.integers(0, 3)),
        "id": maybe(st.sampled_from(["a", "b", "", 7])),
        "type": maybe(st.just("function")),
        "function": maybe(
            st.fixed_dictionaries(
                {},
                optional={
                    "name": maybe(st.sampled_from(["read-file", "", "glob"])),
                    "arguments": maybe(st.sampled_from(['{"pa', 'th": "x"}', "{}", ""]) | text),
                },
            )
        ),
    },
)
delta = st.fixed_dictionaries(
    {},
    optional={
        "content": maybe(text),
        "reasoning_content": maybe(text),
        "reasoning": maybe(text),
        "tool_calls": maybe(st.lists(maybe(tool_delta), max_size=3)),
    },
)
chunk = st.fixed_dictionaries(
    {},
    optional={
        "choices": maybe(
            st.lists(
                maybe(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "delta": maybe(delta),
                            "finish_reason": maybe(st.sampled_from(["stop", "length", ""])),
                        },
                    )
                ),
                max_size=2,
            )
        ),
        "usage": maybe(
            st.fixed_dictionaries(
                {},
                optional={
                    "prompt_tokens": maybe(st.integers(0, 10**6)),
                    "completion_tokens": json_values,
                    "prompt_tokens_details": maybe(
                        st.fixed_dictionaries({}, optional={"cached_tokens": json_values})
                    ),
                },
            )
        ),
        "error": st.one_of(st.none(), json_values),
    },
)


def settle(acc: StreamAccumulator) -> None:
    """The turn built so far must be whole: printable, serialisable, sendable back."""
    turn = acc.finish()
    message = turn.to_message(echo_reasoning=True)
    json.dumps(message, ensure_ascii=False).encode("utf-8")
    for c in turn.tool_calls:
        c.arguments.encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(st.lists(chunk | json_values, max_size=6))
def test_random_json_chunks(chunks: list[Any]) -> None:
    acc = StreamAccumulator()
    try:
        for c in chunks:
            acc.feed(c)
    except EXPECTED:
        pass
    settle(acc)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.binary(max_size=60)
        | st.sampled_from(
            [
                b"data: ",
                b"\n",
                b"\r",
                b"\n\n",
                b"[DONE]",
                b'{"choices":[{"delta":{"content":"',
                b"\\ud83d",
                b'"}}]}',
                b"retry: 5",
                b"event: ping",
                b":",
                b"\xff",
            ]
        ),
        max_size=25,
    )
)
def test_random_bytes_through_the_parser(pieces: list[bytes]) -> None:
    decoder, acc = SseDecoder(), StreamAccumulator()
    try:
        for piece in [*pieces, None]:
            payloads = decoder.finish() if piece is None else decoder.feed(piece)
            for payload in payloads:
                if payload != DONE:
                    acc.feed(parse_payload(payload))
    except EXPECTED:
        pass
    settle(acc)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_random_unstreamed_answers(body: Any) -> None:
    acc = StreamAccumulator()
    try:
        acc.feed(completion_as_chunk(body))
    except EXPECTED:
        pass
    settle(acc)


TOOLS = builtin_tools()
# tools that act on the machine are denied: their argument checks still run
REGISTRY = ToolRegistry(list(TOOLS.values()), {"bash": "deny", "git": "deny"})


def arguments(name: str) -> Any:
    fields = list(TOOLS[name].Params.model_fields)
    shaped = st.dictionaries(st.sampled_from(fields) | text, json_values, max_size=4)
    return st.one_of(text, json_values.map(json.dumps), shaped.map(json.dumps))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_random_tool_arguments_through_the_registry(tmp_path: Path, data: Any) -> None:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    (root / "a.txt").write_text("alpha\nbeta\n")
    ctx = ToolContext(Workspace(root), "main", ReadTracker(), MemoStore(), TodoStore())
    name = data.draw(st.sampled_from(sorted(TOOLS)) | text)
    raw = data.draw(arguments(name) if name in TOOLS else text)
    result = asyncio.run(REGISTRY.call(ToolCall("c1", name, raw), ctx, refuse_all))
    result.output.encode("utf-8")  # printable and sendable back to the model
    result.summary.encode("utf-8")
