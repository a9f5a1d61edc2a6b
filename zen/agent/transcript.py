"""One conversation's messages, the one place they change, and the record they are saved to.

`add` is the only way a message enters: it appends the message and saves it in the same step,
so a resumed session tells the model exactly what the live one did (two messages that skipped
it once were lost on `--continue`; `tests/test_one_way_in.py` checks the rule on the source).
The other writes rewrite what is there and say so to the record: a compaction's restart (a new
branch), a task taken back when its first request failed, a scout's reads shrunk to stubs (in
memory only: delegates' records are never resumed), the system prompt (never saved).

It also knows how full the next request is: the server's count of the last request plus an
estimate of what came since (see `zen/agent/context.py`).

The session's conversation holds one transcript for as long as it lasts, and the top agent
works on that same object, whatever mode or model rebuilt it: the conversation is held once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zen.agent.context import messages_tokens, tools_tokens
from zen.llm.types import TokenUsage
from zen.stores.session_log import SessionLog

Message = dict[str, Any]


class Transcript:
    def __init__(self, history: Sequence[Message] = (), system: str = "") -> None:
        self._messages: list[Message] = [{"role": "system", "content": system}, *history]
        self.log: SessionLog | None = None
        """Where each message is saved as it is added (None: not saved)."""
        self._measured = (0, 0)
        """(messages, tokens) the server counted for the last request and its reply."""
        self.measured_prompt = 0
        """The server's count of the last request alone (0: none), which tells whether the
        server dropped the tool schemas (`zen.llm.usage.tools_dropped`)."""

    @property
    def messages(self) -> list[Message]:
        """What the next request sends: the system prompt, then the conversation. Read it;
        change it only through this class."""
        return self._messages

    @property
    def history(self) -> list[Message]:
        """The conversation after the system prompt, as the record holds it (a copy)."""
        return self._messages[1:]

    def __len__(self) -> int:
        return len(self._messages)

    def take_over(self, system: str, log: SessionLog | None) -> None:
        """An agent (re)built for this conversation continues it under its own system prompt,
        saving to `log`."""
        self.set_system(system)
        self.log = log

    def set_system(self, system: str) -> None:
        """The system prompt (an agent's, or the edit blocks' after `auto` switched)."""
        self._messages[0] = {"role": "system", "content": system}

    def add(self, message: Message) -> None:
        """The one way a message enters the conversation: appended, and saved."""
        self._messages.append(message)
        if self.log is not None:
            self.log.append(message)

    def restart(self, messages: list[Message]) -> None:
        """A compaction's new conversation (system prompt first), saved as a new branch; the
        server's last count no longer applies."""
        self._messages[:] = messages
        self._measured = (0, 0)
        if self.log is not None:
            self.log.restart(messages[1:])

    def take_back(self, index: int) -> None:
        """Drop the task message at `index` (its request failed before any answer), here and
        in the record, so a retry does not hold it twice."""
        del self._messages[index:]
        if self.log is not None and self.log.last_seq >= 0:
            self.log.drop_from(self.log.last_seq)

    def shrink(self, messages: list[Message]) -> None:
        """The same messages with some made shorter (a scout's noted reads), in memory only."""
        self._messages[:] = messages

    def cut(self, index: int) -> None:
        """Go back to before message `index` of the history (a rewind; the record forks)."""
        del self._messages[index + 1 :]

    def measured(self, usage: TokenUsage) -> None:
        """The server's count of the request just answered and of its answer (just added)."""
        counted = usage.prompt_tokens + usage.completion_tokens
        exact = usage.prompt_tokens and not usage.estimated
        self._measured = (len(self._messages), counted if exact else 0)
        self.measured_prompt = usage.prompt_tokens if exact else 0

    @property
    def counted(self) -> bool:
        """True when `tokens()` rests on the server's own count."""
        n, counted = self._measured
        return bool(counted) and n <= len(self._messages)

    def tokens(self, tools: list[dict[str, Any]]) -> int:
        """Tokens the next request holds with `tools`: the server's count of the last one plus
        an estimate of what came since (all estimated when the server reports no usage)."""
        n, counted = self._measured
        if self.counted:
            return counted + messages_tokens(self._messages[n:])
        return tools_tokens(tools) + messages_tokens(self._messages)
