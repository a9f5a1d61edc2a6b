"""`zen` with no arguments: the interactive shell.

A prompt-toolkit prompt (persistent history, Alt+Enter for a new line, completion of slash
commands and of `@path` mentions) alternates with agent runs rendered by the log view. The
prompt and the run never draw at the same time: while a run streams, nothing but the log
writes to the terminal, and the only prompts (confirmations) go through `patch_stdout`.

Ctrl-C (or Esc): during a run it cancels the run (the core closes any open tool calls, the bash tool
kills its process tree) and the conversation is kept; with text typed it clears the text; at
an empty prompt it warns, and a second one (or Ctrl-D) exits.

`--simple`, TERM=dumb, input or output that is not a terminal, and any console prompt-toolkit
cannot drive (Windows `NoConsoleScreenBufferError` under mintty/Git Bash) use plain `input()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Protocol

from prompt_toolkit.completion import Completer, Completion

from zen import __version__, exits
from zen.extensions import load_commands
from zen.paths import private_file, zen_home
from zen.terminal_safe import terminal_safe
from zen.tools.workspace import OutsideWorkspace, PathError, Workspace
from zen.ui import term
from zen.ui.commands import (
    COLLABORATIONS,
    CommandContext,
    Prompt,
    is_command,
    list_sessions,
    listing,
    offered_notes,
    resume_session,
    resumed,
    run_command,
    user_listing,
)
from zen.ui.confirm import ShellApprover
from zen.ui.format import output_tail, status_line
from zen.ui.preload import preload
from zen.ui.render import LogRenderer

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractAsyncContextManager

    from prompt_toolkit.document import Document
    from prompt_toolkit.formatted_text import StyleAndTextTuples

    from zen.agent.session import Session
    from zen.config import Config

    OpenSession = Callable[..., AbstractAsyncContextManager[Session]]

MENTION = re.compile(r"(?:(?<=\s)|^)@(\S+)")
TRAILING_PUNCTUATION = ".,;:!?)]}'\""
BANG_LINES = 40
"""Lines of a `!cmd`'s output printed; `/show` has the rest."""
ATTACH_LIMIT = 100_000
"""Characters of one @file attached to a message, at most."""
COMPLETIONS = 200


def run_shell(
    config: Config,
    workspace: Path,
    open_session: OpenSession,
    *,
    simple: bool = False,
    yes: bool = False,
    resume: str | None = None,
    continue_last: bool = False,
    keep: frozenset[str] = frozenset(),
) -> int:
    """`resume`: a session id, or "" to pick one from a list; `continue_last`: the latest.
    `open_session` is the composition root's (zen.app): the CLI hands it in, so the shell
    depends on the session, never on how one is put together."""
    from zen.config import ConfigError
    from zen.stores.sessions import SessionError

    term.tolerate_encoding(sys.stdout)
    caps = term.detect(sys.stdout)
    shell = Shell(config, workspace, caps, open_session, simple=simple, yes=yes)
    try:
        return asyncio.run(shell.main(resume=resume, continue_last=continue_last, keep=keep))
    except (ConfigError, SessionError) as e:
        print(terminal_safe(f"zen: {e}"), file=sys.stderr)
        return exits.USAGE
    except KeyboardInterrupt:
        return exits.INTERRUPTED


class Reader(Protocol):
    async def read(self, prompt: str) -> str: ...

    async def ask(self, question: str) -> str: ...


class Shell:
    def __init__(
        self,
        config: Config,
        root: Path,
        caps: term.Caps,
        open_session: OpenSession,
        *,
        simple: bool,
        yes: bool,
    ) -> None:
        self.config = config
        self.root = root
        self.open_session = open_session
        self.out = LogRenderer(term.make_console(caps), caps)
        self.approver = ShellApprover(self.out, self._ask, yes=yes, interrupt=self._cancel_run)
        self.simple = simple or not caps.live or not term.is_tty(sys.stdin)
        self.reader: Reader | None = None
        self.session: Session | None = None
        self.user_commands: list[tuple[str, str]] = []
        """(name, summary) of the user's commands and skills, for completion."""
        self.running: asyncio.Task[Any] | None = None
        self.reading = False
        """A blocking input() is waiting: Ctrl-C must interrupt it."""
        self.keys: term.KeyWatcher | None = None
        """Watches for Esc while a run goes on."""
        self.typeahead = ""
        """Keys typed during a run: the next prompt starts with them."""
        self.bang_outputs: list[str] = []
        """`!cmd` runs not yet sent: they go before the next message."""
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- the loop -------------------------------------------------------------------------

    async def main(
        self,
        *,
        resume: str | None = None,
        continue_last: bool = False,
        keep: frozenset[str] = frozenset(),
    ) -> int:
        from zen.ui.stop_signals import StopSignals

        self._loop = asyncio.get_running_loop()
        previous = signal.getsignal(signal.SIGINT)
        signal.signal(signal.SIGINT, self._on_sigint)
        # SIGTERM/SIGHUP: end like Ctrl-C at an empty prompt, after stopping any run.
        stop = StopSignals()
        main = asyncio.current_task()
        assert main is not None
        stop.install(main.cancel)
        try:
            async with self.open_session(
                self.config,
                self.root,
                warn=self._warn,
                resume=resume or None,
                continue_last=continue_last,
                keep=keep,
            ) as session:
                self.session = session
                self.approver.always = session.always  # saved with the session, restored too
                try:
                    ctx = self._command_context(session)
                    self.reader = self._make_reader()
                    self._banner()
                    self._report_tightened()
                    starting = session.mcp.starting() if session.mcp is not None else []
                    if starting:  # they start in the background; failures are warned later
                        count = len(starting)
                        self.out.info(
                            f"starting {count} MCP server{'s' if count > 1 else ''}…", "dim"
                        )
                    if resume == "":
                        await self._pick(ctx)
                    elif session.history:
                        resumed(ctx)
                    else:
                        offered_notes(ctx)
                    await self._repl(ctx)
                finally:
                    self.session = None  # Ctrl-C while servers stop must still work
        except asyncio.CancelledError:
            if stop.received is None:
                raise
            if sys.version_info >= (3, 11):  # 3.10 has no cancel count to undo
                main.uncancel()
            return stop.exit_code
        finally:
            stop.remove()
            signal.signal(signal.SIGINT, previous)
        return exits.DONE

    def _command_context(self, session: Session) -> CommandContext:
        """Built-in commands plus the user's commands and skills (a trusted project's too)."""
        root, trusted = session.workspace.root, session.config.project_trusted
        commands = {c.name: c for c in load_commands(root, trusted)}
        skills = {s.name: s for s in session.skills}
        ctx = CommandContext(session, self.out, self.approver, commands=commands, skills=skills)
        self.user_commands = user_listing(ctx)
        return ctx

    async def _send(self, prompt: Prompt) -> None:
        """A command's message for the model, on the command's own model and work mode for
        this one run."""
        assert self.session is not None
        session = self.session
        model, mode = session.config.model, session.work_mode
        try:
            if prompt.model:
                session.set_model(prompt.model)
            if prompt.work_mode:
                session.set_work_mode(prompt.work_mode)
            await self.run_task(prompt.text)
        except ValueError as e:
            self.out.error(str(e))
        finally:
            if prompt.model:
                session.set_model(model)
            if prompt.work_mode:
                session.set_work_mode(mode)

    async def _pick(self, ctx: CommandContext) -> None:
        """`zen -r`: list this workspace's sessions and resume the one picked."""
        if not list_sessions(ctx):
            return
        try:
            answer = await self._ask("resume which? number or id (Enter: a new session) › ")
        except (KeyboardInterrupt, EOFError):
            answer = ""
        if answer.strip():
            resume_session(ctx, answer.strip())

    async def _repl(self, ctx: CommandContext) -> None:
        warned = False
        while not ctx.exit:
            try:
                line = await self._read(self._prompt())
            except KeyboardInterrupt:
                if warned:
                    break
                warned = True
                self.out.info("(Ctrl-C again or Ctrl-D to exit)", "dim")
                continue
            except EOFError:
                break
            warned = False
            if not line.strip():
                continue
            if line.startswith("!") and line[1:].strip():
                task = await self._supervise(self.run_bang(line[1:].strip()))
                if task.cancelled() or task.exception() is not None:
                    self._report(task, "!" + line[1:].split()[0])
                continue
            if is_command(line):
                try:
                    pending = run_command(ctx, line)
                except Exception as e:  # a command's bug must not end the shell
                    self.out.error(f"{line.split()[0]} failed: {type(e).__name__}: {e}")
                    continue
                if isinstance(pending, Prompt):
                    await self._send(pending)
                elif pending is not None:
                    task = await self._supervise(pending)
                    if task.cancelled() or task.exception() is not None:
                        self._report(task, line.split()[0])
                continue
            await self.run_task(line)

    async def run_task(self, line: str) -> None:
        """One task: run it, let Ctrl-C cancel it, then print one status line."""
        assert self.session is not None
        session = self.session
        message = self.attach(line)
        if self.bang_outputs:  # `!cmd` output the user ran since the last message
            message = "\n\n".join([*self.bang_outputs, message])
            self.bang_outputs.clear()
        before = _usage_snapshot(session)
        started = time.monotonic()
        task = await self._supervise(session.run(message, self.out, self.approver))
        self._report(task)
        spent = _spent(before, _usage_snapshot(session))
        estimated = {role for role, u in session.usage.items() if u.estimated}
        self.out.status(
            status_line(
                spent,
                time.monotonic() - started,
                estimated,
                cost=session.run_cost,
                context=session.context_now(),
            )
        )

    async def _supervise(self, work: Any) -> asyncio.Task[Any]:
        """Run `work` (a task, or a command that talks to the model) until it ends; Ctrl-C
        cancels it. Returns the finished task."""
        task = asyncio.ensure_future(work)
        self.running = task
        keys = None if self.simple else term.KeyWatcher(self._cancel_run)
        self.keys = keys
        try:
            if keys is not None:
                keys.start()
            await asyncio.wait({task})
        except asyncio.CancelledError:
            # The shell itself is ending (SIGTERM/SIGHUP): stop the run first, so its tool
            # processes die and its calls are answered before the MCP servers are stopped.
            task.cancel()
            await asyncio.wait({task}, timeout=10)
            raise
        finally:
            self.running = None
            self.keys = None
            if keys is not None:
                keys.stop()
                self.typeahead += "".join(keys.typed)
        self.out.end_run()
        return task

    def _cancel_run(self) -> None:
        if self.running is not None:
            self.running.cancel()

    def _report(self, task: asyncio.Task[Any], command: str = "") -> None:
        from zen.config import ConfigError
        from zen.llm.types import LLMError

        if task.cancelled():
            what = f"{command} was stopped" if command else "the run was stopped"
            self.out.info(f"interrupted: {what}, the conversation so far is kept", "yellow")
            return
        error = task.exception()
        if isinstance(error, (LLMError, ConfigError)):  # e.g. /dual with no key for its role
            self.out.error(str(error))
            if not command and self._unanswered_dropped():
                self.out.info("your message got no answer and was not kept (↑ recalls it)", "dim")
        elif error is not None:
            what = f"{command} failed" if command else "internal error"
            self.out.error(f"{what}: {type(error).__name__}: {error}")
        elif task.result().stop == "max_turns":
            result = task.result()
            self.out.info(
                f"stopped after {result.turns} turns (max_turns); say `continue` to go on", "yellow"
            )

    async def run_bang(self, command: str) -> None:
        """`!cmd`: run it in the workspace without the model, show it, and keep its output
        for the next message (the model sees what the user saw)."""
        assert self.session is not None
        tool = self.session.tools["bash"]
        out = self.out
        out.print(out.styled(("$ ", "bold magenta"), (command, "bold")))
        params = tool.Params.model_validate({"command": command})
        result = await tool.execute(params, self.session.context("user"))
        lines, more = output_tail(result.output, BANG_LINES)
        if more:
            out.info(f"… {more} lines above (/show)", "dim")
        for line in lines:
            out.print(out.styled((line, "")))
        out.info(
            f"{'✓' if result.ok else '✗'} {result.summary} · the output goes with your "
            "next message",
            "green" if result.ok else "red",
        )
        out.outputs.append((f"$ {command}", result.output))
        self.bang_outputs.append(
            f"<shell-command>\n$ {command}\n{result.output.rstrip()}\n</shell-command>"
        )

    # -- @file mentions -------------------------------------------------------------------

    def attach(self, line: str) -> str:
        """The message with each `@path` inside the workspace attached below it."""
        assert self.session is not None
        files: list[str] = []
        for path, shown, content in mentioned_files(line, self.session.workspace, self.out.info):
            if len(content) <= ATTACH_LIMIT:
                self.session.note_read(path)  # it saw the whole file: no re-read to edit it
            body = content[:-1] if content.endswith("\n") else content
            files.append(f'<file path="{shown}">\n{body}\n</file>')
        return line if not files else line.rstrip() + "\n\n" + "\n\n".join(files)

    # -- input ----------------------------------------------------------------------------

    def _make_reader(self) -> Reader:
        if self.simple:
            return PlainReader(self)
        try:
            return PromptReader(self)
        except Exception as e:  # NoConsoleScreenBufferError (mintty), odd consoles
            self.simple = True
            self.out.info(f"(plain input: the console cannot run the full prompt: {e})", "dim")
            return PlainReader(self)

    async def _read(self, prompt: str) -> str:
        return await self._input(prompt, question=False)

    async def _ask(self, question: str) -> str:
        return await self._input(question, question=True)

    async def _input(self, text: str, *, question: bool) -> str:
        try:
            return await self._input_once(text, question=question)
        finally:
            if question and self.keys is not None and self.running is not None:
                self.keys.start()

    async def _input_once(self, text: str, *, question: bool) -> str:
        """A line from the reader; if prompt-toolkit fails at run time, plain input() from now
        on, and the session goes on."""
        assert self.reader is not None
        keys = self.keys if question else None
        if keys is not None:  # the question reads stdin itself
            keys.stop()
        try:
            return await (self.reader.ask(text) if question else self.reader.read(text))
        except (KeyboardInterrupt, EOFError):
            raise
        except Exception as e:
            if isinstance(self.reader, PlainReader):
                raise
            self.simple = True
            self.reader = PlainReader(self)
            self.out.info(f"(plain input from now on: {type(e).__name__}: {e})", "dim")
            return await (self.reader.ask(text) if question else self.reader.read(text))

    def _prompt(self) -> str:
        assert self.session is not None
        state: str = self.session.mode
        if state == "dual":
            state += f"·{self.session.collaboration}"
        if self.approver.yes_all:
            state += "·yes"
        return f"zen {state}"

    def _banner(self) -> None:
        assert self.session is not None
        try:
            settings = self.session.settings(self.session.role)
            model = settings.model
            if settings.default_model:
                model += f" ({settings.provider}'s default; /model to change)"
        except Exception:  # shown at the first task instead
            model = "?"
        self.out.info(
            f"zen {__version__} · {self.root} · {model} · /help for commands, Ctrl-D to exit", "dim"
        )

    def _unanswered_dropped(self) -> bool:
        """Did the failed run take its user message back? (It got no answer at all: the
        conversation ends as before it, with an answer or nothing.)"""
        history = self.session.history if self.session else []
        return not history or history[-1].get("role") == "assistant"

    def _report_tightened(self) -> None:
        from zen import paths

        for path in paths.tightened:
            self.out.info(
                f"note: {path} was readable by others; it is now private to you", "yellow"
            )
        paths.tightened.clear()

    def _warn(self, message: str) -> None:
        self.out.info(f"warning: {message}", "yellow")

    def warm_soon(self) -> None:
        """From the preload thread: build the model client on the loop while the user types
        (its TLS context alone is ~40 ms), not in the first message."""
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the shell has already ended
                self._loop.call_soon_threadsafe(self._warm_client)

    def _warm_client(self) -> None:
        session = self.session
        if session is not None:
            with contextlib.suppress(Exception):  # e.g. a role without a key: the task says so
                session.client(session.role)

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        """Ctrl-C outside prompt-toolkit's raw mode (which reads it as a key): interrupt a
        blocking input(), else cancel the run, else stop a start-up that hangs. One arriving
        just after a run ended (a second press) is dropped: it must not end the shell."""
        task = self.running
        if self.reading or self.session is None:
            raise KeyboardInterrupt
        if task is not None and not task.done() and self._loop:
            self._loop.call_soon_threadsafe(task.cancel)


# -- readers --------------------------------------------------------------------------------


class PlainReader:
    """input(): for --simple, pipes, TERM=dumb and consoles prompt-toolkit cannot drive.

    A line ending in a backslash continues on the next one.
    """

    def __init__(self, shell: Shell) -> None:
        self.shell = shell
        if shell.out.caps.live and term.is_tty(sys.stdin):
            use_readline()

    async def read(self, prompt: str) -> str:
        lines = [self._input(f"{prompt} › ")]
        while lines[-1].endswith("\\"):
            lines[-1] = lines[-1][:-1]
            lines.append(self._input("… "))
        return "\n".join(lines)

    async def ask(self, question: str) -> str:
        return self._input(question)

    def _input(self, prompt: str) -> str:
        sys.stdout.flush()
        preload()  # input() shows the prompt at once and waits outside the GIL
        self.shell.reading = True
        try:
            return input(prompt)
        except KeyboardInterrupt:
            print(flush=True)  # the terminal echoed ^C: what comes next starts a new line
            raise
        finally:
            self.shell.reading = False


def use_readline() -> None:
    """Line editing and Up/Down for plain input(), where the platform has readline."""
    try:
        import readline
    except ImportError:  # Windows without pyreadline: input() as it is
        return
    readline.parse_and_bind("set enable-bracketed-paste off")


class PromptReader:
    """prompt-toolkit: history, multi-line input, completion; output above it is patched."""

    def __init__(self, shell: Shell) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, History, InMemoryHistory
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.styles import Style

        self.shell = shell
        bindings = KeyBindings()

        @bindings.add("c-c")
        def _interrupt(event: Any) -> None:
            buffer = event.app.current_buffer
            if buffer.text:
                buffer.reset()
            else:
                event.app.exit(exception=KeyboardInterrupt, style="class:aborting")

        @bindings.add("escape", "enter")
        def _newline(event: Any) -> None:
            event.current_buffer.insert_text("\n")

        history: History
        try:
            history = FileHistory(str(private_file(history_path(shell.root))))
        except OSError:
            history = InMemoryHistory()
        assert shell.session is not None
        self.style = Style.from_dict({"state": "bold cyan", "arrow": "cyan", "question": ""})
        self.prompt: PromptSession[str] = PromptSession(
            history=history,
            completer=ShellCompleter(shell.session.workspace, shell.user_commands),
            complete_while_typing=True,
            reserve_space_for_menu=6,
            key_bindings=bindings,
            multiline=False,
            prompt_continuation=lambda width, line, wrap: "… ".rjust(width),
            style=self.style,
            include_default_pygments_style=False,
        )
        self.prompt.app.after_render += lambda _app: preload(shell.warm_soon)  # prompt drawn
        self.confirm: Any = None

    async def read(self, prompt: str) -> str:
        from prompt_toolkit.patch_stdout import patch_stdout

        message: StyleAndTextTuples = [("class:state", prompt), ("class:arrow", " › ")]
        typed, self.shell.typeahead = self.shell.typeahead, ""
        with patch_stdout(raw=True):
            return await self.prompt.prompt_async(message, handle_sigint=False, default=typed)

    async def ask(self, question: str) -> str:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.patch_stdout import patch_stdout

        if self.confirm is None:
            self.confirm = PromptSession(style=self.style, include_default_pygments_style=False)
        with patch_stdout(raw=True):
            return await self.confirm.prompt_async(
                [("class:question", question)], handle_sigint=False
            )


def history_path(workspace: Path) -> Path:
    """~/.zen/history/<workspace hash>: what was typed in this workspace (pasted tokens too),
    so private to the user; Up recalls this project's prompts, not every project's."""
    import hashlib

    digest = hashlib.sha256(os.fsencode(workspace)).hexdigest()[:16]
    return zen_home() / "history" / f"{workspace.name[:40] or 'root'}-{digest}"


# -- completion and @mentions ---------------------------------------------------------------


class ShellCompleter(Completer):
    """`/com…` → slash commands (and /collab's modes); `…@pa…` → paths in the workspace."""

    def __init__(self, workspace: Workspace, user: list[tuple[str, str]] | None = None) -> None:
        self.workspace = workspace
        self.user = user or []
        """(name, summary) of the user's own commands and skills."""

    def get_completions(self, document: Document, complete_event: Any) -> Iterator[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before:
            rows = [(c.name, c.summary) for c in listing()] + self.user
            for name, summary in rows:
                if f"/{name}".startswith(before.lower()):
                    yield Completion(f"/{name}", -len(before), display_meta=summary)
            return
        if before.startswith("/collab ") and " " not in before[8:]:
            word = before[8:]
            for mode in COLLABORATIONS:
                if mode.startswith(word):
                    yield Completion(mode, -len(word))
            return
        word = document.get_word_before_cursor(WORD=True)
        if word.startswith("@"):
            for path, is_dir in path_candidates(self.workspace, word[1:]):
                shown = path + ("/" if is_dir else "")
                yield Completion("@" + shown, -len(word), display=terminal_safe(shown))


def path_candidates(workspace: Workspace, partial: str) -> Iterable[tuple[str, bool]]:
    """Entries of the workspace folder `partial` points into whose names start like it."""
    folder, _, prefix = partial.rpartition("/")
    try:
        base = workspace.resolve(folder or ".")
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except (PathError, OSError):
        return []
    found = []
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        if entry.name.startswith(".") and not prefix.startswith("."):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        found.append((f"{folder}/{entry.name}" if folder else entry.name, is_dir))
        if len(found) >= COMPLETIONS:
            break
    return found


def mentioned_files(line: str, workspace: Workspace, note: Any) -> list[tuple[Path, str, str]]:
    """(path, shown path, text) of each `@path` in `line` that is a text file inside the workspace.

    Anything else (missing, outside the workspace, a folder, binary) stays in the message as
    typed, and `note(text, style)` tells the user why it was not attached.
    """
    found: list[tuple[Path, str, str]] = []
    seen: set[Path] = set()
    for match in MENTION.finditer(line):
        raw = match.group(1).rstrip(TRAILING_PUNCTUATION) or match.group(1)
        target = _mention_target(workspace, match.group(1))
        if isinstance(target, str):
            note(f"@{raw}: {target}, not attached", "yellow")
            continue
        if target in seen:
            continue
        try:
            with open(target, "rb") as f:  # a huge file costs what is attached, no more
                data = f.read(ATTACH_LIMIT * 4 + 1)
                size = os.fstat(f.fileno()).st_size
        except OSError as e:
            note(f"@{raw}: cannot be read ({e.strerror}), not attached", "yellow")
            continue
        if b"\0" in data[:8192]:
            note(f"@{raw}: a binary file, not attached", "yellow")
            continue
        text = data.decode("utf-8", errors="replace")
        if len(text) > ATTACH_LIMIT or size > len(data):
            text = text[:ATTACH_LIMIT] + f"\n[cut: the file has {size:,} bytes]"
        seen.add(target)
        shown = workspace.show(target)
        found.append((target, shown, text))
        count = len(text.splitlines())
        note(f"attached {shown} ({count} line{'' if count == 1 else 's'})", "dim")
    return found


def _mention_target(workspace: Workspace, raw: str) -> Path | str:
    """The file `@raw` names (trailing punctuation forgiven), or why there is none."""
    reason = "no such file"
    for candidate in dict.fromkeys((raw, raw.rstrip(TRAILING_PUNCTUATION))):
        if not candidate:
            continue
        try:
            path = workspace.resolve(candidate)
        except OutsideWorkspace:
            reason = "outside the workspace"
            continue
        except PathError:  # a symlink loop, a NUL byte
            reason = "not a usable path"
            continue
        if path.is_file():
            return path
        if path.is_dir():
            reason = "a folder (mention the files in it)"
    return reason


Tokens = tuple[int, int, int]


def _usage_snapshot(session: Session) -> dict[str, Tokens]:
    return {
        role: (u.prompt_tokens, u.completion_tokens, u.cached_tokens)
        for role, u in session.usage.items()
    }


def _spent(before: dict[str, Tokens], after: dict[str, Tokens]) -> dict[str, Tokens]:
    """What this run used, by role: prompt, completion and cached tokens."""
    spent = {}
    for role, (p, c, k) in after.items():
        p0, c0, k0 = before.get(role, (0, 0, 0))
        spent[role] = (p - p0, c - c0, k - k0)
    return spent
