"""Every git process zen starts: no pager, no prompt, and no program the repository names.

A repository's own configuration (`.git/config`, files it includes, a submodule's config) and
its attributes can name programs git runs by itself: `core.fsmonitor` on every `git status`,
`filter.<driver>.clean` on every file whose stat data changed (all of them, in a repository
unpacked from an archive), `gpg.program` under `log.showSignature`, hooks, credential helpers,
`!` aliases. A repository nobody vetted must not run code because zen looked at it, so before
each git command zen reads the configuration (`git config --list`, which runs nothing) and
overrides, through `GIT_CONFIG_COUNT` (no quoting problems, inherited by submodule processes):

- always: fsmonitor off, hooks off (`core.hooksPath` = the null device), pager `cat`, editor
  `true`, signatures not shown, the `ext::` transport never allowed;
- every program-naming key the repository sets (and the user's own config does not set to the
  same value): back to the user's value if there is one, else to a harmless default.

Keys no value can switch off (`diff.<driver>.textconv`/`command`, `diff.external`,
`merge.<driver>.driver`, ...) are reported in `RepoConfig.unsafe`: the git tool then runs only
reading commands, with `--no-ext-diff --no-textconv` (see `git.py`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from zen.tools.child import Finished, run_child

TIMEOUT = 30.0
CONFIG_TIMEOUT = 5.0
READ_LIMIT = 1_000_000
"""Bytes read from git before it is stopped: `git log -p` of a big repository never ends."""
MAX_SUBMODULE_CONFIGS = 64

QUIET_ENV = {
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EDITOR": "true",
    "GIT_SEQUENCE_EDITOR": "true",
    "EDITOR": "true",
    "VISUAL": "true",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
}
"""No pager, no editor, no password prompt; `status` leaves the index lock to the user's git."""

ALWAYS: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("sequence.editor", "true"),
    ("log.showSignature", "false"),
    ("protocol.ext.allow", "never"),
    ("color.ui", "false"),
)

# (section, subsection: "*" any / "" none, name) -> harmless value. Keys as git lists them:
# section and name lower-case, subsection as written.
NEUTRAL: dict[tuple[str, str, str], str] = {
    ("filter", "*", "clean"): "",
    ("filter", "*", "smudge"): "",
    ("filter", "*", "process"): "",
    ("filter", "*", "required"): "false",
    ("credential", "", "helper"): "",
    ("credential", "*", "helper"): "",
    ("core", "", "sshcommand"): "ssh",
    ("core", "", "askpass"): "",
    ("gpg", "", "program"): "gpg",
    ("gpg", "openpgp", "program"): "gpg",
    ("gpg", "x509", "program"): "gpgsm",
    ("gpg", "ssh", "program"): "ssh-keygen",
    ("remote", "*", "uploadpack"): "git-upload-pack",
    ("remote", "*", "receivepack"): "git-receive-pack",
    ("alias", "", "*"): "",  # `!cmd`, or `-c key=value` smuggled into an approved command
    ("pager", "", "*"): "false",
}
MULTI_VALUED = {"helper"}
"""An empty value resets the list; the user's own helpers are then added back."""

UNSAFE: set[tuple[str, str, str]] = {
    ("diff", "*", "textconv"),
    ("diff", "*", "command"),
    ("diff", "", "external"),
    ("merge", "*", "driver"),
    ("interactive", "", "difffilter"),
    ("core", "", "gitproxy"),
    ("core", "", "alternaterefscommand"),
    ("gpg", "ssh", "defaultkeycommand"),
    ("difftool", "*", "cmd"),
    ("mergetool", "*", "cmd"),
    ("guitool", "*", "cmd"),
    ("browser", "*", "cmd"),
    ("man", "*", "cmd"),
    ("sendemail", "", "smtpserver"),
    ("sendemail", "", "tocmd"),
    ("sendemail", "", "cccmd"),
    ("sendemail", "", "headercmd"),
    ("hook", "*", "command"),
    ("submodule", "*", "update"),
    ("blame", "", "ignorerevsfile"),  # reads any file and echoes its first bad line
}
"""Keys no value switches off (they name a program, or a file outside to read): only reading
commands run, with flags that switch them off (git.py)."""

USER_SCOPES = ("system", "global", "command")


class GitError(Exception):
    """git could not be run at all (not installed, timed out, bad arguments)."""


@dataclass(frozen=True)
class GitOutput:
    code: int
    stdout: str
    stderr: str
    truncated: bool = False


@dataclass(frozen=True)
class RepoConfig:
    """What the repository's own configuration names, and how zen's git switches it off."""

    overrides: tuple[tuple[str, str], ...] = ALWAYS
    unsafe: tuple[str, ...] = field(default=())
    """Keys that name a program no override can switch off (`diff.x.textconv`)."""


def _pattern(key: str) -> tuple[str, str, str]:
    section, _, rest = key.partition(".")
    sub, _, name = rest.rpartition(".")
    return section.lower(), sub, name.lower()


def _matches(
    key: str, table: dict[tuple[str, str, str], str] | set[tuple[str, str, str]]
) -> tuple[str, str, str] | None:
    section, sub, name = _pattern(key)
    for candidate in (
        (section, sub, name),
        (section, "*" if sub else "", name),
        (section, "*" if sub else "", "*"),
    ):
        if candidate in table:
            return candidate
    return None


def neutralise(repo: list[tuple[str, str]], user: list[tuple[str, str]]) -> RepoConfig:
    """Overrides for the program-naming keys among `repo`'s (key, value) entries, given the
    user's own entries (system, global, command line): the user's value wins back."""
    user_values: dict[str, list[str]] = {}
    for key, value in user:
        user_values.setdefault(key, []).append(value)
    hooks = user_values.get("core.hookspath")  # the user's own hooks folder stays in use
    overrides = [(k, hooks[-1] if k == "core.hooksPath" and hooks else v) for k, v in ALWAYS]
    unsafe: list[str] = []
    done: set[str] = set()
    for key, value in repo:
        mine = user_values.get(key, [])
        if value in mine or key in done:
            continue  # the user's own setting, repeated: not the repository's choice
        neutral_key = _matches(key, NEUTRAL)
        if neutral_key is not None:
            done.add(key)
            if neutral_key[2] in MULTI_VALUED:
                overrides += [(key, ""), *((key, v) for v in mine)]
            else:
                overrides.append((key, mine[-1] if mine else NEUTRAL[neutral_key]))
        elif _matches(key, UNSAFE) is not None and key not in unsafe:
            if key.lower().endswith(".update") and not value.startswith("!"):
                continue  # submodule.x.update = checkout/rebase/merge/none runs nothing
            unsafe.append(key)
    return RepoConfig(tuple(overrides), tuple(unsafe))


def git_env(config: RepoConfig) -> dict[str, str]:
    """The environment for a git process: quiet, and `config.overrides` as command-line
    configuration that git passes on to the processes it starts (submodules too)."""
    env = {**os.environ, **QUIET_ENV}
    try:
        start = max(0, int(env.get("GIT_CONFIG_COUNT", "0")))
    except ValueError:
        start = 0
    for n, (key, value) in enumerate(config.overrides, start):
        env[f"GIT_CONFIG_KEY_{n}"] = key
        env[f"GIT_CONFIG_VALUE_{n}"] = value
    env["GIT_CONFIG_COUNT"] = str(start + len(config.overrides))
    return env


async def repo_config(cwd: Path) -> RepoConfig:
    """Read the configuration git would use in `cwd` (running no program) and neutralise it.
    GitError when it cannot be read: a git that cannot be checked is not run."""
    out = await _spawn(
        ["config", "--list", "--show-scope", "--includes", "-z"],
        cwd,
        {**os.environ, **QUIET_ENV},
        CONFIG_TIMEOUT,
        READ_LIMIT,
        "config",
    )
    if out.truncated:
        raise GitError("cannot read the repository's git configuration: it is over 1 MB")
    if out.code != 0:
        reason = (out.stderr.strip().splitlines() or [f"exit {out.code}"])[0]
        raise GitError(f"cannot read the repository's git configuration: {reason}")
    repo: list[tuple[str, str]] = []
    user: list[tuple[str, str]] = []
    items = out.stdout.split("\0")
    for scope, entry in zip(items[::2], items[1::2], strict=False):
        key, _, value = entry.partition("\n")
        (user if scope in USER_SCOPES else repo).append((key, value))
    dirs = git_dirs(cwd)
    _check_work_tree(repo, dirs)
    for path in _submodule_configs(dirs):
        sub = await _spawn(
            ["config", "--file", str(path), "--includes", "-z", "--list"],
            cwd,
            {**os.environ, **QUIET_ENV},
            CONFIG_TIMEOUT,
            READ_LIMIT,
            "config",
        )
        for entry in sub.stdout.split("\0"):
            if entry:
                key, _, value = entry.partition("\n")
                repo.append((key, value))
    return neutralise(repo, user)


@dataclass(frozen=True)
class GitDirs:
    top: Path
    """The folder holding `.git`: the work tree."""
    gitdir: Path
    common: Path
    """Where config, objects and `modules/` live (a linked worktree shares its main one's)."""


def git_dirs(cwd: Path) -> GitDirs | None:
    """The repository holding `cwd`, found as git finds it (a `.git` folder, or a `.git` file
    naming the git dir), without starting a process."""
    for folder in (cwd.resolve(), *cwd.resolve().parents):
        dotgit = folder / ".git"
        if dotgit.is_dir():
            return GitDirs(folder, dotgit, dotgit)
        if dotgit.is_file():
            try:
                text = dotgit.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return None
            if not text.startswith("gitdir:"):
                return None
            gitdir = (folder / text[7:].strip()).resolve()
            try:
                common = (gitdir / (gitdir / "commondir").read_text().strip()).resolve()
            except OSError:
                common = gitdir
            return GitDirs(folder, gitdir, common)
    return None


def _submodule_configs(dirs: GitDirs | None) -> list[Path]:
    """`modules/**/config`: submodules' own configurations, which `git status` reads when it
    looks inside them."""
    if dirs is None or not (dirs.common / "modules").is_dir():
        return []
    found = sorted(p for p in (dirs.common / "modules").rglob("config") if p.is_file())
    return found[:MAX_SUBMODULE_CONFIGS]


def _check_work_tree(repo: list[tuple[str, str]], dirs: GitDirs | None) -> None:
    """A repository may not point git at another folder (`core.worktree=/home/u`): reading
    commands would list and diff the files there."""
    for key, value in repo:
        if key.lower() != "core.worktree" or dirs is None:
            continue
        target = (dirs.gitdir / value).resolve()  # relative to the git dir, as git reads it
        if target != dirs.top:
            raise GitError(
                f"this repository's git configuration points its work tree elsewhere "
                f"(core.worktree={value}); zen does not run git here"
            )


async def run_git(
    args: list[str],
    cwd: Path,
    *,
    timeout: float = TIMEOUT,
    limit: int = READ_LIMIT,
    config: RepoConfig | None = None,
) -> GitOutput:
    """Run `git --no-pager <args>` in `cwd` with the repository's programs switched off;
    GitError if it cannot start, its configuration cannot be read, or it overruns `timeout`.
    `config`: an already read `repo_config(cwd)`."""
    if config is None:
        config = await repo_config(cwd)
    name = args[0] if args else "git"
    return await _spawn(["--no-pager", *args], cwd, git_env(config), timeout, limit, name)


async def _spawn(
    args: list[str], cwd: Path, env: dict[str, str], timeout: float, limit: int, name: str
) -> GitOutput:
    """git under the one rule for children (`child.py`): its own session (POSIX) or hidden
    console (Windows), so ssh cannot ask for a passphrase on zen's terminal; stopped at
    `limit` bytes of output."""
    try:
        done = await run_child(
            ["git", *args], cwd=cwd, env=env, timeout=timeout, limit=limit, stop_at_limit=True
        )
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from None
    return git_output(done, timeout, name)


def git_output(done: Finished, timeout: float, name: str) -> GitOutput:
    """What a finished git process said; GitError when it overran `timeout`."""
    if done.timed_out or done.code is None:
        raise GitError(f"git {name} timed out after {timeout:g}s")
    assert done.err is not None
    return GitOutput(done.code, _decode(done.out.data()), _decode(done.err.data()), done.cut_short)


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
