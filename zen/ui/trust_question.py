"""The shell's one question about a folder's own settings, asked before anything runs.

Plain `print` and `input()`: it comes before the shell (and prompt-toolkit) start, and must
work on any terminal. The lines come from `zen.settings.trust_describe.describe`, already
made printable.
"""

from __future__ import annotations

from typing import Literal

from zen.settings.trust import TrustState

Answer = Literal["trust", "skip", "quit"]
_ANSWERS: dict[str, Answer] = {
    "t": "trust",
    "trust": "trust",
    "y": "trust",
    "yes": "trust",
    "n": "skip",
    "no": "skip",
    "not now": "skip",
    "": "skip",
    "q": "quit",
    "quit": "quit",
}


SHELL_CHOICES = "[t]rust  [n]ot now (run without them)  [q]uit › "


def ask_trust(state: TrustState, lines: list[str], choices: str = SHELL_CHOICES) -> Answer:
    """trust / not now (run without them) / quit; Ctrl-C or Ctrl-D quits. `zen trust` asks
    with its own `choices` (there is no run to go on with)."""
    head = "have changed since you trusted this folder" if state.changed else "are not trusted yet"
    print(f"This folder's own zen settings ({', '.join(state.inputs)}) {head}.")
    print("If trusted, they would:")
    for line in lines:
        print(f"  - {line}")
    print("Trust them only if you trust everyone who can change these files.")
    while True:
        try:
            reply = input(choices)
        except (EOFError, KeyboardInterrupt):
            print()
            return "quit"
        answer = _ANSWERS.get(reply.strip().lower())
        if answer is not None:
            return answer
        print("Please answer t, n or q.")
