"""`zen acp [flags]`: serve the Agent Client Protocol on stdin/stdout until the client hangs up.

stdout carries protocol messages only. The protocol gets private copies of the stdin and
stdout descriptors; descriptor 1 then points at stderr and 0 at /dev/null, so nothing else
zen or a library prints, and no child process, can corrupt the stream or eat its input.
Logs go to stderr (editors keep them in their agent log).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from typing import Any, cast

from zen.base import exits
from zen.base.terminal_safe import terminal_safe

MODEL_FLAGS = ("model", "provider", "base_url", "api_key", "max_turns", "work_mode")
STREAM_LIMIT = 50 * 1024 * 1024
"""Bytes one protocol line may hold (an embedded file is sent in one)."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="zen acp",
        description="Run zen as an Agent Client Protocol agent over stdio (for Zed, JetBrains, "
        "Harbor...). Each session's workspace is the folder the client names.",
    )
    p.add_argument("--model", help="model name")
    p.add_argument("--provider", help="provider preset (openai, deepseek, ollama...)")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint URL")
    p.add_argument("--api-key", help="API key (better: set ZEN_API_KEY)")
    p.add_argument("--max-turns", type=int, metavar="N", help="stop a prompt after N turns")
    p.add_argument("--work-mode", metavar="MODE", help="bug-fix, develop, explain or optimize")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--single",
        dest="agent_mode",
        action="store_const",
        const="single",
        help="start sessions with one agent (instead of the config's agent_mode)",
    )
    mode.add_argument(
        "--dual",
        dest="agent_mode",
        action="store_const",
        const="dual",
        help="start sessions with an Orchestrator that delegates to a Coder",
    )
    return p


def acp_command(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        import acp  # noqa: F401
    except ImportError:
        print(
            "zen: `zen acp` needs the acp extra: pip install 'agent-client-protocol>=0.12,<0.13' "
            "(or `pip install '.[acp]'` in zen's checkout)",
            file=sys.stderr,
        )
        return exits.USAGE
    overrides = {k: getattr(args, k) for k in (*MODEL_FLAGS, "agent_mode")}
    overrides = {k: v for k, v in overrides.items() if v is not None}
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    logging.basicConfig(handlers=[handler], level=logging.WARNING)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
    try:
        asyncio.run(serve(overrides))
    except KeyboardInterrupt:
        return exits.INTERRUPTED
    return exits.DONE


class OneLine(logging.Formatter):
    """A log record as one line: the SDK logs a client's malformed message with its
    traceback, which says nothing to a user; the exception's own line does."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            text += f": {type(error).__name__}: {error}"
        text = terminal_safe(" ".join(text.split()))
        return f"zen acp: {record.levelname.lower()}: {text}"


async def serve(overrides: dict[str, Any]) -> None:
    """Answer one client until it closes its end; every session is closed on the way out
    (their MCP servers and commands stopped), also on SIGTERM."""
    from acp import run_agent

    from zen.acp.agent import ZenAgent
    from zen.acp.frames import checked
    from zen.ui.preload import preload

    agent = ZenAgent(overrides)
    stdin, writer = await protocol_streams()
    reader, checking = checked(stdin, writer, STREAM_LIMIT)
    # The model client (~0.5 s of imports) loads while the editor initializes and opens a
    # session, so the first prompt does not wait for it.
    preload((("openai", "jiter", "anyio._backends._asyncio"), None))
    main = asyncio.current_task()
    loop = asyncio.get_running_loop()
    stop_signals = [s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s]
    for signum in stop_signals:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, main.cancel)  # type: ignore[union-attr]
    try:
        # ZenAgent answers the requests zen supports; the SDK says method-not-found to the rest
        await run_agent(cast(Any, agent), writer, reader, stdio_buffer_limit_bytes=STREAM_LIMIT)
    except asyncio.CancelledError:
        pass
    finally:
        checking.cancel()
        await agent.close_all()
        for signum in stop_signals:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)


async def protocol_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The protocol's reader and writer on private copies of stdin and stdout."""
    if sys.platform == "win32":
        from acp import stdio_streams

        return await stdio_streams(limit=STREAM_LIMIT)
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    sys.stdout.flush()
    os.dup2(2, 1)  # whatever else writes to stdout lands in the log
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=STREAM_LIMIT)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(proto_in, "rb", buffering=0)
    )
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(proto_out, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    return reader, writer
