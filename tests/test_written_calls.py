"""The text-call parser: every shape small models write, and every shape that must stay text."""

from __future__ import annotations

import json

import pytest

from zen.agent.protocols.written_calls import MAX_CALLS, WrittenCall, parse_written_calls

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read-file",
            "description": "Read a file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "bash",
            "description": "Run a command.",
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string"}},
                "required": ["command"],
            },
        },
    },
]
READ = WrittenCall("read-file", '{"path": "a.py"}')


def calls(text: str) -> list[tuple[str, dict]] | None:
    found = parse_written_calls(text, TOOLS)
    return None if found is None else [(c.name, json.loads(c.arguments)) for c in found]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "read-file", "arguments": {"path": "a.py"}}',
        '  \n{"name": "read-file", "arguments": {"path": "a.py"}}\n\n',
        '{"name": "read-file", "parameters": {"path": "a.py"}}',
        '{"name": "read-file", "arguments": "{\\"path\\": \\"a.py\\"}"}',
        '{{"name": "read-file", "arguments": {{"path": "a.py"}}}}',
        '```json\n{"name": "read-file", "arguments": {"path": "a.py"}}\n```',
        '```\n{"name": "read-file", "arguments": {"path": "a.py"}}\n```\n',
        '```json\n[{"name": "read-file", "arguments": {"path": "a.py"}}]\n```',
        '<tool_call>\n{"name": "read-file", "arguments": {"path": "a.py"}}\n</tool_call>',
        '<tool_call>{"name": "read-file", "arguments": {"path": "a.py"}}',  # stopped before </
        "<function=read-file>\n<parameter=path>\na.py\n</parameter>\n</function>",
        "<tool_call>\n<function=read-file>\n<parameter=path>\na.py\n</parameter>\n"
        "</function>\n</tool_call>",
        '<think>the file first</think>\n{"name": "read-file", "arguments": {"path": "a.py"}}',
        '{"type": "function", "function": {"name": "read-file", "arguments": "{\\"path\\": '
        '\\"a.py\\"}"}}',
        '<tools>{"name": "read-file", "arguments": {"path": "a.py"}}</tools>',
    ],
)
def test_a_reply_that_is_only_a_call_is_one(text: str) -> None:
    assert calls(text) == [("read-file", {"path": "a.py"})]


def test_several_calls_in_every_shape() -> None:
    two = [("read-file", {"path": "a.py"}), ("bash", {"command": "ls"})]
    a = '{"name": "read-file", "arguments": {"path": "a.py"}}'
    b = '{"name": "bash", "arguments": {"command": "ls"}}'
    assert calls(f"<tool_call>{a}</tool_call>\n<tool_call>{b}</tool_call>") == two
    assert calls(f"{a}\n{b}") == two
    assert calls(f"```json\n{a}\n```\n\n```json\n{b}\n```") == two
    assert calls(f"[{a}, {b}]") == two
    qwen3 = (
        "<function=read-file>\n<parameter=path>\na.py\n</parameter>\n</function>\n"
        "<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>"
    )
    assert calls(qwen3) == two


def test_unknown_names_are_still_call_attempts() -> None:
    """The registry answers them with the list of tools, so the model can try again."""
    assert calls('{"name": "add_sub", "arguments": {"a": 1}}') == [("add_sub", {"a": 1})]


def test_qwen3_values_are_typed_by_the_schema() -> None:
    text = (
        "<function=read-file>\n<parameter=path>\n12\n</parameter>\n"
        "<parameter=offset>\n40\n</parameter>\n</function>"
    )
    assert calls(text) == [("read-file", {"path": "12", "offset": 40})]
    multi = "<function=bash>\n<parameter=command>\necho a\necho b\n</parameter>\n</function>"
    assert calls(multi) == [("bash", {"command": "echo a\necho b"})]


def test_arguments_that_are_not_json_reach_the_registry_as_they_are() -> None:
    found = parse_written_calls('{"name": "bash", "arguments": "ls -la"}', TOOLS)
    assert found == [WrittenCall("bash", "ls -la")]


@pytest.mark.parametrize(
    "text",
    [
        # an explanation quoting an example, before or after it
        'To read a file, call:\n{"name": "read-file", "arguments": {"path": "a.py"}}',
        '{"name": "read-file", "arguments": {"path": "a.py"}}\nThat is how you would do it.',
        'Example:\n```json\n{"name": "read-file", "arguments": {"path": "a.py"}}\n```\nDone.',
        'I will now call <tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>',
        # not call-shaped: data, other languages' fences, half a call
        '{"name": "Alice", "age": 3}',
        '{"name": "read-file"}',
        '{"name": "read-file", "arguments": {}, "note": "x"}',
        '```python\n{"name": "read-file", "arguments": {"path": "a.py"}}\n```',
        '{"name": "read-file", "arguments": {"path": "a.py"',
        "[]",
        "plain text",
        "",
        "   ",
        "<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\nand then",
    ],
)
def test_call_shaped_text_in_prose_or_data_is_text(text: str) -> None:
    assert parse_written_calls(text, TOOLS) is None


def test_an_echo_of_the_tool_list_never_runs() -> None:
    assert parse_written_calls(f"<tools>\n{json.dumps(TOOLS)}\n</tools>", TOOLS) is None
    assert parse_written_calls(json.dumps(TOOLS[0]), TOOLS) is None
    echoed = {k: v for k, v in TOOLS[1]["function"].items() if k != "description"}
    assert parse_written_calls(json.dumps(echoed), TOOLS) is None  # {"name", "parameters": schema}
    one_real = '{"name": "bash", "arguments": {"command": "ls"}}'
    mixed = f"<tools>{json.dumps(TOOLS[0])}</tools>\n<tool_call>{one_real}</tool_call>"
    assert parse_written_calls(mixed, TOOLS) is None


def test_no_tools_sent_means_no_calls() -> None:
    assert parse_written_calls('{"name": "bash", "arguments": {"command": "ls"}}', []) is None


def test_bounded_on_hostile_input() -> None:
    many = "\n".join('{"name": "bash", "arguments": {"command": "ls"}}' for _ in range(MAX_CALLS))
    assert parse_written_calls(many, TOOLS) is not None
    assert parse_written_calls(many + '\n{"name": "bash", "arguments": {}}', TOOLS) is None
    deep = '{"name": "bash", "arguments": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert parse_written_calls(deep, TOOLS) is None
    assert parse_written_calls("{{" * 50_000, TOOLS) is None


def test_a_result_the_model_invented_after_its_call_is_ignored() -> None:
    """Qwen2.5-Coder-1.5B on llama.cpp: a call, then its own made-up `<tool_response>`."""
    invented = (
        '{"name": "read-file", "arguments": {"path": "a.py"}}\n\n'
        "<tool_response>\nNew content of a.py:\nx = 5\n</tool_response>"
    )
    assert calls(invented) == [("read-file", {"path": "a.py"})]
    assert calls(invented + "\n\nDone: x is now 5.") == [("read-file", {"path": "a.py"})]
    quoted = 'A call looks like {"name": "read-file", "arguments": {"path": "a.py"}}\n'
    assert calls(quoted + "<tool_response>x</tool_response>") is None
    assert calls("<tool_response>\nx = 5\n</tool_response>") is None
