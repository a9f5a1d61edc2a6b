"""Asking before a confirm-level tool runs: show what will happen, then y / a / n.

The preview is printed whole, however long (it scrolls), and through the log's terminal-safe
styling: what is approved is exactly what is shown.

`a` (always) is remembered for the rest of the shell session: per tool, or for bash per command
(an allow rule, "always for `pytest …`"; a command no rule fits offers no `a`); `n` asks for
optional feedback that goes back to the model as the tool's result. A request to run a command
outside the sandbox is asked every time, so its question offers no `a`. Questions are asked one
at a time, even when parallel agents want approval together; Ctrl-C at a question stops the
whole run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from zen.settings.command_rules import always_names, kept
from zen.tools.base import Approval, ApprovalRequest
from zen.ui.format import is_nested, preview_key
from zen.ui.render import LogRenderer

Ask = Callable[[str], Awaitable[str]]
"""Shows a question and returns the line typed; KeyboardInterrupt on Ctrl-C, EOFError on
Ctrl-D."""

QUESTION = "  allow? [y]es  [a]lways for {what}  [n]o › "
ONCE_QUESTION = "  allow? [y]es  [n]o › "
PERSONAL_QUESTION = "  allow outside the sandbox? [y]es  [n]o (asked every time) › "
FEEDBACK = "  tell the model why, or what to do instead (Enter to skip) › "
ANSWERS = {"y": "yes", "yes": "yes", "a": "always", "always": "always", "n": "no", "no": "no"}


class ShellApprover:
    """The shell's `Approver`."""

    def __init__(
        self,
        out: LogRenderer,
        ask: Ask,
        *,
        yes: bool = False,
        interrupt: Callable[[], None] = lambda: None,
    ) -> None:
        self.out = out
        self.ask = ask
        self.yes_all = yes
        self.interrupt = interrupt
        """Cancels the whole run: a question may be asked deep inside a sub-agent's task."""
        self.always: set[str] = set()
        self._lock = asyncio.Lock()

    def approved(self, tool: str) -> bool:
        return self.yes_all or tool in self.always

    async def __call__(self, request: ApprovalRequest) -> Approval:
        if self.approved(request.tool) and not request.personal:
            return Approval("yes")
        async with self._lock:
            if self.approved(request.tool) and not request.personal:  # answered `a` meanwhile
                return Approval("yes")
            self.out.live.pause()
            try:
                self.show(request)
                return await self._decide(request)
            except KeyboardInterrupt:  # Ctrl-C at a question ends the run, not just this call
                self.interrupt()
                raise asyncio.CancelledError from None
            except EOFError:
                return Approval("no", "the user gave no answer")
            finally:
                self.out.live.resume()

    def show(self, request: ApprovalRequest) -> None:
        out = self.out
        who = f" ({request.agent})" if is_nested(request.agent) else ""
        out.print(out.styled(("? ", "bold yellow"), (request.tool, "bold"), (who, "dim")))
        lines = request.preview.rstrip("\n").splitlines() or ["(nothing to show)"]
        if request.tool == "bash":
            lines = ["$ " + lines[0], *("  " + line for line in lines[1:])]
        diff = _looks_like_diff(lines)
        if diff:  # shown in full here: the finished line does not repeat it
            out.tools.previewed.add(preview_key(request.agent, request.tool, request.args))
        for line in lines:  # every line: a harmless head may hide a destructive tail
            out.print(out.styled(("  ", ""), (line, _diff_style(line) if diff else "")))
        if request.confined:  # indented less than a command's lines: not part of it
            out.print(out.styled(("  ", ""), (f"runs sandboxed: {request.confined}", "cyan")))

    async def _decide(self, request: ApprovalRequest) -> Approval:
        personal = request.personal  # leaving the sandbox: no `always` is kept, none offered
        what = "" if personal else always_names(request.rule, request.tool)
        question = QUESTION.format(what=what) if what else ONCE_QUESTION
        question = PERSONAL_QUESTION if personal else question
        while True:
            answer = ANSWERS.get((await self.ask(question)).strip().lower())
            if answer == "yes":
                return Approval("yes")
            if answer == "always" and what:
                self.always.add(kept(request.rule) if request.rule else request.tool)
                return Approval("always")
            if answer == "no":
                feedback = (await self.ask(FEEDBACK)).strip()
                return Approval("no", feedback)
            self.out.info(
                "  answer y (yes), a (always) or n (no)" if what else "  answer y (yes) or n (no)",
                "dim",
            )


def _looks_like_diff(lines: list[str]) -> bool:
    return any(line.startswith("@@") for line in lines[:8]) or (
        len(lines) > 1 and lines[0].startswith("--- ") and lines[1].startswith("+++ ")
    )


def _diff_style(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "bold"
    if line.startswith("@@"):
        return "cyan"
    return {"+": "green", "-": "red"}.get(line[:1], "")
