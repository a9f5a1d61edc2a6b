"""Whether a workspace's own settings apply to this run: trusted, `--trust`, asked, or skipped.

Its own module because the run starters and the `zen mcp` / `zen config` subcommands all pass
through it before they load the config.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs start-up time; checkers know this idiom
if TYPE_CHECKING:
    from pathlib import Path


def decide_trust(root: Path, *, flag: bool, ask: bool, shown: str | None) -> bool | None:
    """Whether the workspace's own inputs apply to this run; None: the user chose to quit.

    Trusted (with unchanged inputs) or `--trust`: yes. Otherwise the interactive shell asks
    once, before anything from them runs; everything else (`-p`, pipes) skips them with one
    warning line. Never a prompt in `-p`."""
    from zen.base.warn import warn_stderr
    from zen.settings import trust
    from zen.settings.trust_describe import describe

    state = trust.check(root)
    if flag or state.trusted:
        return True
    if ask:
        from zen.ui.trust_question import ask_trust

        answer = ask_trust(state, describe(root))
        if answer == "trust":
            try:
                trust.trust(state)
            except OSError as e:
                warn_stderr(
                    f"cannot record trust in {trust.store_path()} "
                    f"({e.strerror or e}); trusted for this run only"
                )
        return None if answer == "quit" else answer == "trust"
    where = f" {shown}" if shown else ""
    warn_stderr(
        f"ignored {', '.join(state.inputs)}: {state.why_not()}; review them "
        f"and run `zen trust{where}`, or pass --trust for this run"
    )
    return False
