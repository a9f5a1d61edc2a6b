"""Characters zen sends in its first request, per role and mode (issue 3's figure).

Counts the system prompt, the tool schemas (compact JSON, as the SDK sends them), the run's facts
that open the first message (environment and git facts, and the Orchestrator's triage line; no
project instructions) and the task:
what every later request of that agent repeats. System prompt and tools are the same in every
run, so a server's prefix cache reuses them; the facts and the task are what a new run adds. The
`text` rows are the text protocol (`tool_protocol: text`): no tools; its first message also
carries the task's files, which are the task's size, not the prompt's.
Measured with the git layer and tool on (inside a repository), the largest case, with fixed
facts (workspace, OS, date) so the figures are the same on every machine. `~tokens` is zen's
own estimate (UTF-8 bytes / 4). Run: python dev/bench/prompt_size.py

`tests/test_prompt_size_doc.py` checks the table in docs/benchmarks.md against these rows.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from zen.agent.context import estimate  # noqa: E402
from zen.agent.roles import CODER  # noqa: E402
from zen.agent.session import Session  # noqa: E402
from zen.agent.triage import decide  # noqa: E402
from zen.app import make_workspace  # noqa: E402
from zen.settings.loading import load_config  # noqa: E402
from zen.settings.prompts import load_prompt, render  # noqa: E402

TASK = "rename greet() to welcome() everywhere"
GIT = "Git: branch main; 2 modified, 1 untracked"
FIXED = {"workspace": Path("/home/me/project"), "os": "Linux 6.8.0", "date": "2025-06-01"}
Row = tuple[str, str, int, int, int, int, int]
"""role, mode, characters of the system prompt, tools, facts and task, then ~tokens in all."""


def size(role: str, mode: str, system: str, tools: list[dict], facts: str, task: str) -> Row:
    compact = json.dumps(tools, separators=(",", ":"), ensure_ascii=False)
    tokens = estimate(system + compact + facts + task)
    return role, mode, len(system), len(compact), len(facts), len(task), tokens


def sent(messages: list[dict]) -> str:
    """The system prompt and what comes with it before the conversation (the text protocol's
    worked example)."""
    return "\n".join(str(m["content"]) for m in messages)


def rows() -> list[Row]:
    root = Path(tempfile.mkdtemp())
    config = load_config(root, {"api_key": "x", "base_url": "http://127.0.0.1:9/v1"}, env={})
    session = Session(config, make_workspace(config, root), git_facts=GIT)
    builder = session.builder
    builder.facts = replace(builder.facts, **FIXED)
    facts = builder.facts.context()
    agent = session.conversation.agent()
    found = [
        size(
            "single",
            "-",
            agent.transcript.messages[0]["content"],
            agent.registry.schemas(),
            facts,
            TASK,
        )
    ]
    for mode in ("delegated", "autonomous", "controlled"):
        session.set_mode("dual")
        session.set_collaboration(mode)
        orch = session.conversation.agent()
        found.append(
            size(
                "orchestrator",
                mode,
                orch.transcript.messages[0]["content"],
                orch.registry.schemas(),
                facts + "\n" + decide(TASK, []).note(),  # the triage line joins the facts
                TASK,
            )
        )
        names = CODER.tool_names(mode)
        task = render(
            load_prompt("coder-task"),
            task="[goal] rename greet to welcome [files] greet.py [refs] plan:rename",
            context="",
            notes="",
            memo="plan:rename — rename greet to welcome (orchestrator)",
        )
        system = CODER.system_prompt(mode, planning=False)
        found.append(size("coder", mode, system, builder.registry(names).schemas(), facts, task))
    # The text protocol: no tools on the wire; the first message grows by the files it names.
    text_config = config.model_copy(update={"tool_protocol": "text"})
    text_session = Session(text_config, make_workspace(text_config, root), git_facts=GIT)
    text_session.builder.facts = replace(text_session.builder.facts, **FIXED)
    agent = text_session.conversation.agent()
    system = sent(agent.protocol.wire_messages(agent.transcript.messages))
    found.append(size("single", "text", system, agent.wire_tools(), facts, TASK))
    text_session.set_mode("dual")
    coder = text_session.builder.delegates("dual", "delegated")(CODER, "coder")
    system = sent(coder.protocol.wire_messages(coder.transcript.messages))
    found.append(size("coder", "text", system, coder.wire_tools(), facts, task))
    return found


def main() -> None:
    print(
        f"{'role':<13}{'mode':<12}{'system':>8}{'tools':>8}{'facts':>7}{'task':>6}{'total':>8}{'~tokens':>9}"
    )
    for role, mode, system, tools, facts, task, tokens in rows():
        total = system + tools + facts + task
        print(f"{role:<13}{mode:<12}{system:>8}{tools:>8}{facts:>7}{task:>6}{total:>8}{tokens:>9}")


if __name__ == "__main__":
    main()
