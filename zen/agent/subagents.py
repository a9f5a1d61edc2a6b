"""spawn-agents' runner: sub-agents side by side, each in a fresh context.

A sub-agent is built like the dual mode's Coder: its own system prompt, one user message (its
task and the memo index), its own ReadTracker and the session's shared memo. Its events carry
the name `sub:<description>`, so front-ends nest them. One sub-agent's failure (an API error,
a bug, its turn limit) becomes a failed report and never cancels the others; cancelling the
whole call still stops them all.
"""

from __future__ import annotations

from zen.agent.delegate import Crew, run_delegate
from zen.agent.roles import SUBAGENTS
from zen.base import events as ev
from zen.settings.prompts import load_prompt, render
from zen.tools.base import Delegation, RunContext, SubTask


class SubAgentRunner:
    """`spawn-agents` for one run: at most `parallel` sub-agents at a time."""

    def __init__(self, crew: Crew, parallel: int) -> None:
        self.crew = crew
        self.parallel = parallel

    async def __call__(self, tasks: list[SubTask], call_id: str = "") -> list[Delegation]:
        import anyio  # only sessions that spawn pay for it

        names = agent_names([t.description for t in tasks])
        reports: list[Delegation] = [Delegation("", [], [], ok=False) for _ in tasks]
        limiter = anyio.CapacityLimiter(self.parallel)

        async def run(i: int) -> None:
            async with limiter:
                reports[i] = await self._run(names[i], tasks[i], call_id)

        async with anyio.create_task_group() as group:
            for i in range(len(tasks)):
                group.start_soon(run, i)
        return reports

    async def _run(self, name: str, task: SubTask, call_id: str) -> Delegation:
        crew = self.crew
        run = RunContext(emit=crew.emit, approver=crew.approver)
        agent = None
        try:
            agent = crew.make(SUBAGENTS[task.type], name, call_id)
            message = render(
                load_prompt("subagent-task"),
                prompt=task.prompt.strip(),
                memo=crew.memo.index_text() or "(empty)",
            )
            return await run_delegate(agent, crew.memo, message, run)
        except Exception as exc:  # one sub-agent's failure is reported, never spread
            reason = str(exc).strip() or type(exc).__name__
            crew.emit(ev.Notice(agent=name, text=f"sub-agent failed: {reason}", level="warning"))
            files = list(agent.files_changed) if agent else []
            return Delegation(f"Failed: {reason}", files, crew.memo.written_by(run.id), ok=False)


def agent_names(descriptions: list[str]) -> list[str]:
    """`sub:<description>` for each task; a repeated description gets `#2`, `#3`..."""
    names: list[str] = []
    for i, description in enumerate(descriptions, 1):
        base = "sub:" + (" ".join(description.split()) or f"task {i}")
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base} #{n}"
        names.append(name)
    return names
