"""Characters zen sends in its first request, per role and mode (issue 3's figure).

Counts the system prompt + the tool schemas (compact JSON, as the SDK sends them) + the first
user message: what every later request of that agent repeats. The `text` row is the text
protocol (`tool_protocol: text`): no tools; its user message also carries the task's files,
which are the task's size, not the prompt's. Measured with the git layer and
tool on (inside a repository), the largest case. Run: python bench/prompt_size.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zen.agent.roles import CODER  # noqa: E402
from zen.agent.session import Session  # noqa: E402
from zen.app import make_workspace  # noqa: E402
from zen.settings.loading import load_config  # noqa: E402
from zen.settings.prompts import load_prompt, render  # noqa: E402

TASK = "rename greet() to welcome() everywhere"
GIT = "Git: branch main; 2 modified, 1 untracked"


def size(system: str, tools: list[dict], user: str) -> tuple[int, int, int]:
    compact = json.dumps(tools, separators=(",", ":"), ensure_ascii=False)
    return len(system), len(compact), len(user)


def main() -> None:
    root = Path(tempfile.mkdtemp())
    config = load_config(root, {"api_key": "x", "base_url": "http://127.0.0.1:9/v1"}, env={})
    rows = []
    session = Session(config, make_workspace(config, root), git_facts=GIT)
    agent = session.conversation.agent()
    rows.append(
        ("single", "-", *size(agent.messages[0]["content"], agent.registry.schemas(), TASK))
    )
    for mode in ("delegated", "autonomous", "controlled"):
        session.set_mode("dual")
        session.set_collaboration(mode)
        orch = session.conversation.agent()
        rows.append(
            (
                "orchestrator",
                mode,
                *size(orch.messages[0]["content"], orch.registry.schemas(), TASK),
            )
        )
        names = CODER.tool_names(mode)
        coder_prompt = CODER.system_prompt(mode, planning=False)
        task = render(
            load_prompt("coder-task"),
            task="[goal] rename greet to welcome [files] greet.py [refs] plan:rename",
            context="",
            notes="",
            memo="plan:rename — rename greet to welcome (orchestrator)",
        )
        rows.append(
            ("coder", mode, *size(coder_prompt, session.builder.registry(names).schemas(), task))
        )
    # The text protocol: no tools on the wire; the user message grows by the files it names.
    text_config = config.model_copy(update={"tool_protocol": "text"})
    text_session = Session(text_config, make_workspace(text_config, root), git_facts=GIT)
    agent = text_session.conversation.agent()
    rows.append(("single", "text", *size(agent.messages[0]["content"], agent.wire_tools(), TASK)))
    text_session.set_mode("dual")
    coder = text_session.builder.delegates("dual", "delegated")(CODER, "coder")
    rows.append(("coder", "text", *size(coder.messages[0]["content"], coder.wire_tools(), task)))
    print(f"{'role':<13}{'mode':<12}{'system':>8}{'tools':>8}{'user':>6}{'total':>8}")
    for role, mode, s, t, u in rows:
        print(f"{role:<13}{mode:<12}{s:>8}{t:>8}{u:>6}{s + t + u:>8}")


if __name__ == "__main__":
    main()
