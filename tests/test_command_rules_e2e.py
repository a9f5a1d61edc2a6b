"""Allow rules by command through the real entry points (issue 40): `zen -p` with
`allow_commands` against the fake server, the shell's "always for `touch …`" on a pty, and
an editor's "Always allow `touch …`" over ACP.

Every bypass below would leave a file named for it if it ran; each must be refused (`zen -p`
has nobody to ask), while the commands the rules cover run without a question."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import FakeLLM, call, text, tool_calls
from tests.test_acp import Editor, ask, start, zen_acp
from tests.test_shell_pty import Zen, tool_results

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="rules never match on Windows; pty"),
]

BYPASSES = [
    "touch b0; echo x > b0x",
    "touch b1 && echo x > b1x",
    "touch b2 $(touch b2x)",
    "touch b3 `touch b3x`",
    "touch b4 > b4x",
    "touch b5 <<EOF\nx\nEOF",
    "FOO=1 touch b6",
    "touchx; touch b7",
    "./touch b8; touch b8",
    "touch b9\necho x > b9x",
    "touch b10 & echo x > b10x",
    "echo b11 | xargs touch",
    "touch b12 | sh",
    "eval touch b13",
    "find . -maxdepth 0 -exec touch b14 ';'",
    "{ touch b15; }",
    "(touch b16)",
    "env touch b17",
    't"o"uch b18',
    "tоuch b19; touch b19",  # a Cyrillic о
    "touch b20 #x",
    "touch b21 \\\n; echo",
    "command touch b22",
    "time touch b23",
    "touch b24 ~/b24",
    "touch b25 2>b25x",
    "sh -c 'touch b26'",
]
ALLOWED = ["touch a0; touch a1 2>&1", "touch a2 && touch a3 >/dev/null", "find . -name a0"]
NEEDS_A_PERSON = "needs confirmation and nobody is there"


def _config(home: Path, body: str) -> None:
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text(body)


def test_zen_p_runs_what_the_rules_cover_and_refuses_every_bypass(
    fake_llm: Any, run_zen: Any, home: Path, project: Path
) -> None:
    _config(home, "allow_commands: [touch, find]\n")
    calls = [call("bash", {"command": c}) for c in [*ALLOWED, *BYPASSES]]
    outside = call("bash", {"command": "touch u0", "unsandboxed": "needs the network"})
    fake = fake_llm([tool_calls([*calls, outside]), text("done")])
    done = run_zen(
        "-p", "go", "--output-format", "json", "--base-url", fake.base_url,
        "--model", "fake-model", env={"ZEN_API_KEY": "k"}, timeout=180,
    )  # fmt: skip
    assert "Traceback" not in done.err, done.err
    told = tool_results(fake.requests[-1])
    assert len(told) == len(calls) + 1
    for command, result in zip(ALLOWED, told, strict=False):
        assert "exit 0" in result and NEEDS_A_PERSON not in result, (command, result)
    assert all((project / f"a{n}").exists() for n in range(4))
    for command, result in zip(BYPASSES, told[len(ALLOWED) :], strict=False):
        assert NEEDS_A_PERSON in result, (command, result)
    assert "nobody" in told[-1] and not (project / "u0").exists()  # a rule never leaves it
    made = sorted(p.name for p in project.iterdir() if p.name.startswith(("b", "u", "~")))
    assert made == [], made
    assert done.code == 7, done.err
    denied = json.loads(done.out)["permission_denials"]
    assert [d["args"]["command"] for d in denied][:-1] == BYPASSES


def test_a_bad_rule_stops_zen_p_naming_the_file_and_key(
    fake_llm: Any, run_zen: Any, home: Path
) -> None:
    _config(home, "allow_commands: [pytest, 'env pytest']\n")
    fake = fake_llm([text("never")])
    done = run_zen(
        "-p", "go", "--base-url", fake.base_url, "--model", "m", env={"ZEN_API_KEY": "k"}
    )
    config = home / ".zen" / "config.yaml"
    assert done.code != 0 and "Traceback" not in done.err
    assert f"{config}: allow_commands[1]: 'env pytest': env runs or changes" in done.err
    assert fake.requests == []  # no rule applied: nothing ran


@pytest.fixture
def shell(fake_llm: Any, project: Path, home: Path) -> Any:
    started: list[Zen] = []

    def start(script: Any) -> tuple[Zen, FakeLLM]:
        fake = fake_llm(script)
        started.append(Zen(fake, project, home))
        return started[-1], fake

    yield start
    for zen in started:
        zen.close()


def test_always_in_the_shell_keeps_a_rule_for_the_command_not_for_bash(
    shell: Any, project: Path
) -> None:
    bash = [
        {"command": "touch s1"},
        {"command": "touch s2 s2b"},  # the rule: no question
        {"command": "touch s3 && echo x > s4"},  # a part no rule covers: asked, no `a`
        {"command": 'python3 -c \'open("s5", "w")\''},  # no rule fits: no `a`
    ]
    zen, fake = shell([*(tool_calls([call("bash", args)]) for args in bash), text("Done.")])
    zen.type("go\r")
    zen.ask("allow? [y]es  [a]lways for `touch …`  [n]o")
    zen.type("a\r")
    zen.expect("$ touch s3 && echo x > s4")
    zen.ask("allow? [y]es  [n]o ›")  # a rule for the first part would not cover the line
    zen.type("n\r")
    zen.ask("tell the model why")
    zen.type("\r")
    zen.expect("$ python3 -c")
    zen.ask("allow? [y]es  [n]o ›")
    zen.type("a\r")
    zen.expect("answer y (yes) or n (no)")
    zen.ask("allow? [y]es  [n]o ›")
    zen.type("n\r")
    zen.ask("tell the model why")
    zen.type("\r")
    zen.prompt("single")
    lines = zen.lines()
    assert "  $ touch s2 s2b" not in lines  # never asked about
    assert (project / "s1").exists() and (project / "s2").exists()
    assert not (project / "s3").exists() and not (project / "s5").exists()
    results = tool_results(fake.requests[-1])
    assert "declined" in results[2] and "declined" in results[3]
    assert zen.exit() == 0


class NamingEditor(Editor):
    """An editor that also records the names of the options it was offered."""

    def __init__(self, answer: str) -> None:
        super().__init__(answer)
        self.names: list[list[str]] = []

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        self.names.append([o.name for o in options])
        return await super().request_permission(session_id, tool_call, options, **kwargs)


async def test_always_in_an_editor_keeps_a_rule_for_the_command(
    fake_llm: Any, home: Path, project: Path
) -> None:
    commands = ["touch e1", "touch e2 e3", "touch e4 && echo x > e5"]
    fake = fake_llm(
        [*(tool_calls([call("bash", {"command": c})]) for c in commands), text("Done.")]
    )
    editor = NamingEditor(answer="always")
    async with zen_acp(editor, fake, home, project) as conn:
        sid = await start(conn, project)
        done = await ask(conn, sid, "go")
    assert done.stop_reason == "end_turn"
    assert editor.names == [
        ["Allow", "Always allow `touch …`", "Reject"],
        ["Allow", "Reject"],  # no rule covers the whole line: none offered, `always` is a yes
    ]
    assert all((project / f"e{n}").exists() for n in range(1, 6))
