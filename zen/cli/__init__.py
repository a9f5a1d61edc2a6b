"""The `zen` command line: argv in, the shell, one task or a subcommand out.

`entry` is the console script (`main`); `parser` holds the flags; `subcommands` the small
`zen mcp`, `zen config`, `zen trust` commands; `start` starts a run (the shell or `-p`) after
`trust_gate` decided whether the folder's own settings apply and `task_input` read the task.
Imports nothing: `zen --version` and `zen --help` must stay fast.
"""
