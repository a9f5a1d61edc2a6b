"""Who answers a run nobody watches (`zen -p`): it refuses what needs a person, remembers what
it refused, and says at the end what would have allowed it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TextIO

from zen.tools.base import Approval, ApprovalRequest, refuse_all

DENIED_HINT = (
    "rerun with --yes to approve them, or allow the tools under `permissions:` in .zen/config.yaml"
)


PERSONAL_HINT = (
    "only a person may approve leaving the sandbox (--yes and `permissions:` never do): "
    "run the task in the shell (`zen`) to answer, or let the command run sandboxed"
)


@dataclass
class Refusals:
    """The approver of a run nobody watches: refuses (the model reads why and goes on) and
    remembers what it refused, so the run can end saying so (exit 7). With `--yes` it approves
    every call except one only a person may approve (leaving the sandbox), which is refused
    and remembered like any other."""

    yes: bool = False
    denied: list[dict[str, Any]] = field(default_factory=list)
    ordinary: list[str] = field(default_factory=list)
    """The tools refused for want of `--yes` or a rule."""
    personal: int = 0
    """Requests to leave the sandbox refused: what allows them is not `--yes`."""

    async def __call__(self, request: ApprovalRequest) -> Approval:
        if self.yes and not request.personal:
            return Approval("yes")
        self.denied.append({"tool": request.tool, "agent": request.agent, "args": request.args})
        if request.personal:
            self.personal += 1
        else:
            self.ordinary.append(request.tool)
        return await refuse_all(request)

    def report(self, err: TextIO) -> None:
        """One line per kind of refusal, each saying what would allow it."""
        count = len(self.ordinary)
        if count:
            print(
                f"zen: {count} call{'s' if count != 1 else ''} "
                f"({', '.join(dict.fromkeys(self.ordinary))}) refused: nobody could approve "
                f"{'them' if count != 1 else 'it'}; {DENIED_HINT}",
                file=err,
                flush=True,
            )
        count = self.personal
        if count:
            print(
                f"zen: {count} request{'s' if count != 1 else ''} to run outside the sandbox "
                f"refused; {PERSONAL_HINT}",
                file=err,
                flush=True,
            )
