"""The stream accumulator on every provider shape zen knows of (ids, names, indexes).

Chunks are the parsed JSON of each SSE event, exactly as zen reads them off the wire, so
index-less deltas, int ids and provider extras look as they do in production.
"""

from __future__ import annotations

import time
from typing import Any

from zen.base.events import ReasoningDelta, TextDelta, ToolCallArgsDelta, ToolCallStarted
from zen.llm.accumulator import StreamAccumulator


def chunk(
    delta: dict[str, Any] | None = None,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    *,
    choices: bool = True,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [],
    }
    if choices:
        data["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    if usage is not None:
        data["usage"] = usage
    return data


def tc(
    index: int | None = None, id: Any = None, name: str | None = None, args: str | None = None
) -> dict[str, Any]:
    """One tool-call delta; keys left out when None, as providers leave them out."""
    out: dict[str, Any] = {}
    if index is not None:
        out["index"] = index
    if id is not None:
        out["id"] = id
        out["type"] = "function"
    fn = {k: v for k, v in (("name", name), ("arguments", args)) if v is not None}
    if fn:
        out["function"] = fn
    return out


def calls(*deltas: dict[str, Any]) -> dict[str, Any]:
    return chunk({"tool_calls": list(deltas)})


def run(*chunks: dict[str, Any], agent: str = "main") -> tuple[StreamAccumulator, list[Any]]:
    acc = StreamAccumulator(agent)
    events = [e for c in chunks for e in acc.feed(c)]
    return acc, events


def summary(acc: StreamAccumulator) -> list[tuple[str, str, str]]:
    return [(c.id, c.name, c.arguments) for c in acc.finish().tool_calls]


def test_text_and_events() -> None:
    acc, events = run(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Hel"}),
        chunk({"content": "lo"}),
        chunk({}, "stop"),
        agent="coder",
    )
    assert events == [TextDelta(agent="coder", text="Hel"), TextDelta(agent="coder", text="lo")]
    turn = acc.finish()
    assert (turn.content, turn.tool_calls, turn.finish_reason) == ("Hello", [], "stop")
    assert acc.complete


def test_openai_fragments_two_calls() -> None:
    acc, events = run(
        calls(tc(0, "call_a", "read-file", "")),
        calls(tc(0, args='{"pa')),
        calls(tc(0, args='th": "a.py"}')),
        calls(tc(1, "call_b", "ls", "")),
        calls(tc(1, args="{}")),
        chunk({}, "tool_calls"),
    )
    assert summary(acc) == [("call_a", "read-file", '{"path": "a.py"}'), ("call_b", "ls", "{}")]
    assert events == [
        ToolCallStarted(agent="main", call_id="call_a", name="read-file"),
        ToolCallArgsDelta(agent="main", call_id="call_a", name="read-file", delta='{"pa'),
        ToolCallArgsDelta(agent="main", call_id="call_a", name="read-file", delta='th": "a.py"}'),
        ToolCallStarted(agent="main", call_id="call_b", name="ls"),
        ToolCallArgsDelta(agent="main", call_id="call_b", name="ls", delta="{}"),
    ]


def test_interleaved_indexes() -> None:
    acc, _ = run(
        calls(tc(0, "a", "x", '{"n":'), tc(1, "b", "y", '{"m":')),
        calls(tc(1, args="2}")),
        calls(tc(0, args="1}")),
        chunk({}, "tool_calls"),
    )
    assert summary(acc) == [("a", "x", '{"n":1}'), ("b", "y", '{"m":2}')]


def test_whole_calls_one_per_chunk_ollama() -> None:
    acc, events = run(
        calls(tc(0, "call_1", "read-file", '{"path": "a.py"}')),
        calls(tc(1, "call_2", "grep", '{"pattern": "x"}')),
        chunk({}, "tool_calls"),
    )
    assert summary(acc) == [
        ("call_1", "read-file", '{"path": "a.py"}'),
        ("call_2", "grep", '{"pattern": "x"}'),
    ]
    assert events[0] == ToolCallStarted(agent="main", call_id="call_1", name="read-file")
    assert events[1] == ToolCallArgsDelta(
        agent="main", call_id="call_1", name="read-file", delta='{"path": "a.py"}'
    )


def test_no_index_fragments_keyed_by_position_then_id() -> None:
    acc, _ = run(
        calls(tc(None, "a", "read-file", "")),
        calls(tc(None, args='{"path":')),
        calls(tc(None, args=' "a.py"}')),
        calls(tc(None, "b", "ls", "{}")),
        chunk({}, "tool_calls"),
    )
    assert summary(acc) == [("a", "read-file", '{"path": "a.py"}'), ("b", "ls", "{}")]


def test_no_index_several_calls_in_one_delta_list() -> None:
    acc, _ = run(
        calls(tc(None, "a", "x", "{}"), tc(None, "b", "y", '{"k": 1}')), chunk({}, "tool_calls")
    )
    assert summary(acc) == [("a", "x", "{}"), ("b", "y", '{"k": 1}')]


def test_parallel_calls_all_at_index_zero() -> None:
    whole, _ = run(
        calls(tc(0, "a", "x", '{"i": 1}')),
        calls(tc(0, "b", "x", '{"i": 2}')),
        calls(tc(0, "c", "y", "{}")),
        chunk({}, "tool_calls"),
    )
    assert summary(whole) == [("a", "x", '{"i": 1}'), ("b", "x", '{"i": 2}'), ("c", "y", "{}")]
    fragments, _ = run(
        calls(tc(0, "a", "x", "")),
        calls(tc(0, args='{"i": 1}')),
        calls(tc(0, "b", "x", "")),
        calls(tc(0, args='{"i"')),
        calls(tc(0, args=": 2}")),
        chunk({}, "tool_calls"),
    )
    assert summary(fragments) == [("a", "x", '{"i": 1}'), ("b", "x", '{"i": 2}')]


def test_fresh_id_mid_call_keeps_first_id() -> None:
    acc, _ = run(
        calls(tc(0, "first", "write-file", '{"path": "a.py", ')),
        calls(tc(0, "second", args='"content": "x"}')),
        chunk({}, "tool_calls"),
    )
    assert summary(acc) == [("first", "write-file", '{"path": "a.py", "content": "x"}')]


def test_empty_string_id_on_continuation_vllm() -> None:
    acc, _ = run(
        calls(tc(0, "a", "x", "")), calls(tc(0, "", args='{"k": 1}')), chunk({}, "tool_calls")
    )
    assert summary(acc) == [("a", "x", '{"k": 1}')]


def test_lmstudio_empty_names_are_ignored() -> None:
    acc, events = run(
        calls(tc(0, "a", "read-file", "")),
        calls(tc(0, name="", args='{"path"')),
        calls(tc(0, name="", args=': "b"}')),
        chunk({}, "tool_calls"),
    )
    assert summary(acc) == [("a", "read-file", '{"path": "b"}')]
    assert all(e.name == "read-file" for e in events)


def test_name_resent_every_chunk_is_not_appended() -> None:
    acc, events = run(
        calls(tc(0, "a", "grep", '{"q"')),
        calls(tc(0, "a", "grep", ": 1}")),
        chunk({}, "tool_calls"),
    )
    assert summary(acc) == [("a", "grep", '{"q": 1}')]
    assert sum(isinstance(e, ToolCallStarted) for e in events) == 1


def test_name_arriving_late_announces_with_buffered_args() -> None:
    acc, events = run(
        calls(tc(0, "a", None, '{"q": ')),
        calls(tc(0, name="grep", args="1}")),
        chunk({}, "tool_calls"),
    )
    assert events == [
        ToolCallStarted(agent="main", call_id="a", name="grep"),
        ToolCallArgsDelta(agent="main", call_id="a", name="grep", delta='{"q": 1}'),
    ]
    assert summary(acc) == [("a", "grep", '{"q": 1}')]


def test_int_ids_become_strings() -> None:
    acc, events = run(calls(tc(0, 7, "ls", "{}")), chunk({}, "tool_calls"))
    assert summary(acc) == [("7", "ls", "{}")]
    assert events[0] == ToolCallStarted(agent="main", call_id="7", name="ls")


def test_missing_ids_are_synthesized() -> None:
    acc, _ = run(
        calls(tc(0, None, "x", "{}")), calls(tc(1, "", "y", "{}")), chunk({}, "tool_calls")
    )
    assert summary(acc) == [("call_0", "x", "{}"), ("call_1", "y", "{}")]


def test_broken_json_args_are_kept_raw() -> None:
    acc, _ = run(calls(tc(0, "a", "x", '{"path": ')), chunk({}, "tool_calls"))
    assert summary(acc) == [("a", "x", '{"path": ')]


def test_stop_with_tool_calls_is_still_a_tool_turn() -> None:
    acc, _ = run(calls(tc(0, "a", "ls", "{}")), chunk({}, "stop"))
    turn = acc.finish()
    assert turn.finish_reason == "stop" and [c.name for c in turn.tool_calls] == ["ls"]


def test_text_before_tool_calls() -> None:
    acc, events = run(
        chunk({"content": "Let me look."}), calls(tc(0, "a", "ls", "{}")), chunk({}, "tool_calls")
    )
    turn = acc.finish()
    assert turn.content == "Let me look." and len(turn.tool_calls) == 1
    assert [type(e).__name__ for e in events] == [
        "TextDelta",
        "ToolCallStarted",
        "ToolCallArgsDelta",
    ]


def test_empty_slot_is_dropped() -> None:
    acc, _ = run(calls({"index": 0}), chunk({"content": "hi"}, "stop"))
    assert acc.finish().tool_calls == []


def test_usage_only_final_chunk_with_empty_choices() -> None:
    usage = {
        "prompt_tokens": 120,
        "completion_tokens": 8,
        "total_tokens": 128,
        "prompt_tokens_details": {"cached_tokens": 64},
    }
    acc, events = run(
        chunk({"content": "ok"}), chunk({}, "stop"), chunk(usage=usage, choices=False)
    )
    u = acc.finish().usage
    assert (u.prompt_tokens, u.completion_tokens, u.cached_tokens, u.requests) == (120, 8, 64, 1)
    assert events == [TextDelta(agent="main", text="ok")]


def test_usage_last_one_wins_and_may_ride_on_a_choice() -> None:
    first = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    last = {"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59}
    acc, _ = run(chunk({"content": "a"}, usage=first), chunk({}, "stop", usage=last))
    u = acc.finish().usage
    assert (u.prompt_tokens, u.completion_tokens, u.cached_tokens) == (50, 9, 0)


def test_deepseek_cache_hit_tokens() -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 5,
        "total_tokens": 105,
        "prompt_cache_hit_tokens": 80,
        "prompt_cache_miss_tokens": 20,
    }
    acc, _ = run(chunk({"content": "x"}, "stop"), chunk(usage=usage, choices=False))
    assert acc.finish().usage.cached_tokens == 80


def test_no_usage_at_all() -> None:
    acc, _ = run(chunk({"content": "x"}, "stop"))
    u = acc.finish().usage
    assert (u.prompt_tokens, u.completion_tokens, u.requests) == (0, 0, 1)


def test_reasoning_content_and_reasoning_alias() -> None:
    acc, events = run(
        chunk({"reasoning_content": "think ", "content": None}),
        chunk({"reasoning": "more"}),
        chunk({"content": "answer"}),
        chunk({}, "stop"),
    )
    turn = acc.finish()
    assert (turn.reasoning, turn.content) == ("think more", "answer")
    assert events == [
        ReasoningDelta(agent="main", text="think "),
        ReasoningDelta(agent="main", text="more"),
        TextDelta(agent="main", text="answer"),
    ]


def test_incomplete_stream_is_flagged() -> None:
    acc, _ = run(chunk({"content": "par"}), chunk({"content": "tial"}))
    assert not acc.complete
    usage_only, _ = run(chunk({"content": "x"}), chunk(usage={"prompt_tokens": 1}, choices=False))
    assert usage_only.complete


def test_per_chunk_overhead_is_small() -> None:
    one = chunk({"content": "abcd"})  # building chunks is the SDK's cost, not ours
    acc = StreamAccumulator()
    start = time.perf_counter()
    for _ in range(20_000):
        acc.feed(one)
    per_chunk = (time.perf_counter() - start) / 20_000
    assert len(acc.finish().content) == 80_000
    assert per_chunk < 20e-6, f"{per_chunk * 1e6:.1f} µs per chunk"
