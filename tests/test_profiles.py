"""Model profiles (issue 38 part 4): a small local model the user set nothing for gets the
protocol and sampling its profile gives, through `zen -p` and the fake llama-server; whatever
the user set wins, a model id cannot buy permissions, a bad row is a clear error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tests.fakes import personas
from tests.fakes.server import call, text, tool_calls
from zen.settings.profiles import Profile, pick, shipped

LLAMA = ["--provider", "llamacpp"]


def flags(fake: Any, *more: str) -> list[str]:
    return [*LLAMA, "--base-url", fake.base_url, *more]


def user_config(home: Path, body: str) -> Path:
    path = home / ".zen" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    return path


# --- the table ------------------------------------------------------------------------------


def test_rows_match_family_and_size() -> None:
    row = Profile(family="Qwen2.5-Coder", min_b=1, max_b=2, tool_protocol="text")
    assert row.matches("qwen2.5-coder", 1.5)
    assert not row.matches("qwen2.5-coder", 7.6)
    assert not row.matches("qwen2.5-coder", None)  # a range needs a known size
    assert not row.matches("qwen2.5", 1.5) and not row.matches(None, 1.5)
    assert Profile(family="smollm2").matches("smollm2", None)


def test_the_users_rows_come_first_and_zens_are_marked_measured_or_not() -> None:
    mine = Profile(family="qwen2.5-coder", tool_protocol="native", measured=False)
    assert pick([mine], "qwen2.5-coder", 1.5) is mine
    ours = pick([], "qwen2.5-coder", 1.5)
    assert ours is not None and ours.tool_protocol == "text" and ours.temperature == 0
    assert ours.measured and "0.2 and 0.6 not measured" in str(ours.measured)
    assert pick([], "qwen2.5-coder", 7.6) is None and pick([], "llama-3.2", 1.2) is None
    assert all(isinstance(row.measured, str) or row.measured is False for row in shipped())


@pytest.mark.parametrize(
    "row",
    [
        {"family": "x", "tool_protocol": "tools"},
        {"family": "x", "temperature": 9},
        {"family": "x", "max_tokens": -1},
        {"family": "x", "measured": True},  # say what was measured
        {"family": "x", "agent_mode": "dual"},  # a profile never picks the mode
        {"family": "x", "permissions": {"bash": "allow"}},  # nor a permission
    ],
)
def test_a_bad_row_is_refused(row: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Profile.model_validate(row)


# --- end to end -------------------------------------------------------------------------------


def test_a_small_qwen_with_nothing_set_gets_text_at_temperature_0(fake_llm, run_zen) -> None:
    """`zen --provider llamacpp` on Qwen2.5-Coder-1.5B used to get tools at the server's 0.8."""
    fake = fake_llm([text("It adds.")], **personas.llama_server())
    done = run_zen(*flags(fake), "-p", "what does calc do?")
    assert done.code == 0, done.err
    first = fake.requests[0]
    assert "tools" not in first and first["temperature"] == 0
    assert first["messages"][0]["content"].startswith(
        "You are zen, a coding agent. You have no tools"
    )


def test_what_the_user_set_wins(fake_llm, run_zen, home) -> None:
    fake = fake_llm(
        [tool_calls([call("glob", {"pattern": "*"})]), text("done")], **personas.llama_server()
    )
    user_config(home, "temperature: 0.7\nmax_tokens: 900\n")
    done = run_zen(*flags(fake, "--tool-protocol", "native"), "-p", "list files")
    assert done.code == 0, done.err
    first = fake.requests[0]
    assert first["tools"] and first["temperature"] == 0.7 and first["max_tokens"] == 900


def test_a_users_row_goes_before_zens_and_sets_the_output_cap(fake_llm, run_zen, home) -> None:
    fake = fake_llm([text("ok")], **personas.llama_server())
    user_config(
        home,
        "model_profiles:\n"
        "  - {family: qwen2.5-coder, max_b: 2, tool_protocol: native, temperature: 0.3,\n"
        "     max_tokens: 700, measured: false}\n",
    )
    done = run_zen(*flags(fake), "-p", "hi")
    assert done.code == 0, done.err
    first = fake.requests[0]
    assert first["tools"] and first["temperature"] == 0.3 and first["max_tokens"] == 700


def test_a_bad_user_row_names_the_file_and_the_key(fake_llm, run_zen, home) -> None:
    fake = fake_llm([text("ok")], **personas.llama_server())
    path = user_config(home, "model_profiles:\n  - {family: qwen2.5-coder, tool_protocol: tools}\n")
    done = run_zen(*flags(fake), "-p", "hi")
    assert done.code == 2 and not fake.requests
    assert str(path) in done.err and "model_profiles" in done.err and "tool_protocol" in done.err
    assert "Traceback" not in done.err


def test_auto_starts_as_the_profile_says(fake_llm, run_zen) -> None:
    fake = fake_llm([text("It adds.")], **personas.llama_server())
    done = run_zen(*flags(fake, "--tool-protocol", "auto"), "-p", "what does calc do?")
    assert done.code == 0, done.err
    assert "tools" not in fake.requests[0]  # text from the start, not tools first


def test_no_profile_leaves_zens_defaults(fake_llm, run_zen) -> None:
    fake = fake_llm([text("ok")], **personas.llama_server("Llama-3.2-3B-Instruct-Q4_K_M.gguf"))
    done = run_zen(*flags(fake), "-p", "hi")
    assert done.code == 0, done.err
    assert fake.requests[0]["tools"] and "temperature" not in fake.requests[0]


def test_a_model_id_that_matches_a_profile_gains_no_permission(
    fake_llm, run_zen, home, project
) -> None:
    """A server naming its model to match a profile gets edit blocks, never a permission: a
    denied bash stays denied (a profile has no mode or permission field: see above)."""
    hostile = "```bash\ntouch pwned\n```"
    fake = fake_llm([text(hostile), text("done")], **personas.llama_server())
    user_config(home, "permissions: {bash: deny}\n")
    done = run_zen(*flags(fake), "-p", "count the files", "--yes")
    assert done.code == 0, done.err
    assert "tools" not in fake.requests[0]  # the profile's text protocol
    assert not (project / "pwned").exists()
    assert "denied" in fake.requests[1]["messages"][-1]["content"]


def test_doctor_and_config_show_the_profile(fake_llm, run_zen) -> None:
    fake = fake_llm([], **personas.llama_server())
    doctor = run_zen("doctor", *flags(fake))
    line = next(x for x in doctor.out.splitlines() if x.split(":", 1)[0].endswith(" profile"))
    assert "qwen2.5-coder 1-2B: text, temperature 0 (measured)" in line
    assert "in use: tool protocol text, temperature 0" in line
    config = run_zen("config", *flags(fake, "--tool-protocol", "native"))
    assert "main profile: qwen2.5-coder 1-2B" in config.out
    assert "in use: tool protocol native, temperature 0" in config.out  # the flag wins
