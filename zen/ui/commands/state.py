"""/show, /memo, /todo and /usage: what the session holds, printed on request."""

from __future__ import annotations

from typing import Any

from zen.ui.commands.notes import notes_status
from zen.ui.commands.registry import CommandContext, command, say
from zen.ui.format import role_order, tokens


@command("show", "a tool call's whole output (the last one, or the Nth last)", "[N]")
def _show(ctx: CommandContext, arg: str) -> None:
    outputs = ctx.out.tools.outputs
    if not arg.isdigit() and arg:
        ctx.out.info("usage: /show [N] (1 = the last tool call)", "yellow")
        return
    n = int(arg or 1)
    if not outputs:
        ctx.out.info("no tool output yet", "dim")
        return
    if not 1 <= n <= len(outputs):
        ctx.out.info(f"/show 1 to /show {len(outputs)}", "yellow")
        return
    line, output = outputs[-n]
    ctx.out.info(line, "bold")
    say(ctx, output.rstrip("\n"))


@command("memo", "the memo index, one entry, or `clear` (with the project notes)", "[KEY|clear]")
def _memo(ctx: CommandContext, arg: str) -> None:
    memo = ctx.session.memo
    if arg == "clear":
        ctx.session.clear_memo()
        ctx.out.info("memo cleared, and this workspace's project notes forgotten", "dim")
        return
    if arg:
        entry = memo.read(arg)
        if entry is None:
            ctx.out.info(f"no memo entry {arg!r} (/memo lists the keys)", "yellow")
            return
        ctx.out.info(f"{entry.key} — {entry.summary} ({entry.author})", "bold")
        say(ctx, entry.content)
        return
    entries = memo.index()
    if not entries:
        ctx.out.info("the memo is empty", "dim")
    notes_status(ctx)
    for entry in entries:
        ctx.out.print(
            ctx.out.styled(
                (entry.key, "cyan"), (f" — {entry.summary}", ""), (f" ({entry.author})", "dim")
            )
        )


@command("todo", "the task plan")
def _todo(ctx: CommandContext, arg: str) -> None:
    say(ctx, ctx.session.todo.render())


@command("usage", "tokens, cache hits, cost and context of this session, by role")
def _usage(ctx: CommandContext, arg: str) -> None:
    from zen.llm.pricing import usd

    status = ctx.session.status()
    usage: dict[str, Any] = status.usage
    rows = [
        (role, u)
        for role, u in sorted(usage.items(), key=role_order)
        if u.prompt_tokens or u.completion_tokens
    ]
    if not rows:
        ctx.out.info("no tokens used yet", "dim")
        return
    for role, u in rows:
        cached = (
            f" ({u.cached_tokens / u.prompt_tokens:.0%} cached)"
            if u.cached_tokens and u.prompt_tokens
            else ""
        )
        guess = u.estimated
        ctx.out.info(
            f"{role}: {tokens(u.prompt_tokens, guess)} in{cached} / "
            f"{tokens(u.completion_tokens, guess)} out, "
            f"{u.requests} request{'s' if u.requests != 1 else ''}, {usd(u.cost_usd)}"
            + (" (~: estimated, the server sent no usage)" if guess else "")
        )
    prompt = sum(u.prompt_tokens for _, u in rows)
    completion = sum(u.completion_tokens for _, u in rows)
    cached_all = sum(u.cached_tokens for _, u in rows)
    guess = any(u.estimated for _, u in rows)
    hits = f" ({cached_all / prompt:.0%} cached)" if prompt and cached_all else ""
    ctx.out.info(
        f"total: {tokens(prompt, guess)} in{hits} / {tokens(completion, guess)} out, "
        f"{usd(status.cost_usd)}",
        "dim",
    )
    used, window = status.context
    if used:
        of = f" of {tokens(window)} ({used / window:.0%})" if window else ""
        ctx.out.info(f"context: {tokens(used)}{of} (/context for the split)", "dim")
    if status.cost_usd is None:
        ctx.out.info("cost unknown: add the model's price under `pricing:` in the config", "dim")
