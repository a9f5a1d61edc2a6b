"""The user's Stop (or SubagentStop) hooks, asked when a reply would end the run: a hook may
refuse the end with a reason, which the agent gets as a user message before it goes on, at
most `LIMIT` times a run."""

from __future__ import annotations

from zen.base import events as ev
from zen.tools.hooks import Hooks

LIMIT = 3
"""A Stop hook may send the agent back to work this many times in one run."""


class StopHooks:
    def __init__(self, agent: str, top: bool, hooks: Hooks | None) -> None:
        self.agent, self.hooks = agent, hooks
        self.event = "Stop" if top else "SubagentStop"
        """The agent the user talks to fires Stop hooks; a delegate, SubagentStop."""
        self.continues = 0
        """Times a hook sent this run back to work."""

    def new_run(self) -> None:
        self.continues = 0

    async def reason(self, emit: ev.Emit) -> str | None:
        """The message that sends the agent back to work, or None: the run may end."""
        hooks, event = self.hooks, self.event
        if not hooks or not hooks.wants(event) or self.continues >= LIMIT:
            return None
        said = await hooks.run(event, emit, self.agent, stop_hook_active=self.continues > 0)
        if not said.block:
            return None
        self.continues += 1
        return f"A {event} hook asks you to go on: {said.reason}"
