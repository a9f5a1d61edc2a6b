"""The `zen` console script: answer `--version`, hand a subcommand its argv, or start a run.

Only argparse and zen's light modules are imported at module level: `zen --version` and
`zen --help` must stay fast, so everything heavy (openai, rich, prompt_toolkit, mcp) is
imported on the path that needs it.
"""

from __future__ import annotations

import sys

from zen import __version__
from zen.cli.output import exact_output, report_tightened
from zen.cli.parser import SUBCOMMANDS, build_parser


def main(argv: list[str] | None = None) -> int:
    """Run zen; a reader that went away (`zen sessions list | head -1`) ends it quietly, the
    one place every printing command passes through."""
    try:
        try:
            code = _run(sys.argv[1:] if argv is None else argv)
        except SystemExit as done:  # argparse's --help and usage errors end this way
            if not isinstance(done.code, (int, type(None))):
                raise
            code = done.code or 0
        sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
    except BrokenPipeError:
        return _reader_gone()
    except KeyboardInterrupt:  # Ctrl-C before a run could catch it: imports, a loaded machine
        return _interrupted()
    return code


def _interrupted() -> int:
    """Ctrl-C where no run was there to stop: exit 130 with one line, never a traceback."""
    from zen.base import exits

    print("\nzen: interrupted", file=sys.stderr)
    return exits.INTERRUPTED


def _reader_gone() -> int:
    """No traceback, no "Exception ignored" at exit: what is still buffered goes nowhere."""
    import os

    from zen.base import exits

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return exits.PIPE_CLOSED


def _quiet_child_watcher() -> None:
    """asyncio's child watcher says "Unknown child process pid N" when a child's exit status
    was collected before it looked (rarely, at exit, under load): a line that tells the user
    nothing, so it never reaches the terminal. zen's own waits never rely on that status."""
    import logging

    logging.getLogger("asyncio").addFilter(
        lambda record: not str(record.msg).startswith("Unknown child process pid")
    )


def _subcommand(name: str, argv: list[str]) -> int:
    """`zen NAME ARGV`: its module is imported only now (see `SUBCOMMANDS`)."""
    from importlib import import_module

    module, _, function = SUBCOMMANDS[name][1].partition(":")
    code: int = getattr(import_module(module), function)(argv)
    return code


def _run(argv: list[str]) -> int:
    if argv == ["--version"]:  # the common case, answered before argparse is even built
        print(f"zen {__version__}")
        return 0
    exact_output()
    _quiet_child_watcher()
    if argv[:1] and argv[0] in SUBCOMMANDS:
        return _subcommand(argv[0], argv[1:])
    args = build_parser().parse_args(argv)
    from zen.cli.start import refuse, start

    try:
        return start(args)
    except KeyboardInterrupt:  # during imports: `-p`'s JSON still ends with its result
        from zen.base import exits

        return refuse(args, "interrupted", exits.INTERRUPTED, "interrupted")
    finally:
        report_tightened()
