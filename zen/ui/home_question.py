"""The shell's one question before it snapshots the user's home folder.

Checkpoints copy what they snapshot into `~/.zen/snapshots`; for a home folder that means
every dotfile and key, and a first snapshot that can take minutes. So the shell asks once, at
start, before anything is snapshotted (`--yes` says yes; `-p` without it says no). Plain
`print` and `input()`: it comes before the shell (and prompt-toolkit) start.
"""

from __future__ import annotations


def ask_snapshot_home() -> bool:
    """Yes / no (the default); Ctrl-C or Ctrl-D is no."""
    print("zen is starting in your home folder.")
    print("Checkpoints (/undo, /rewind) would snapshot all of it, except zen's own ~/.zen.")
    try:
        reply = input("Snapshot your home folder? [y/N] › ")
    except (EOFError, KeyboardInterrupt):
        print()
        return False
    return reply.strip().lower() in ("y", "yes")
