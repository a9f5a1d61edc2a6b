"""`zen bench`: how often zen gets a task done on the user's own endpoint, single against dual.

A front-end: each task runs as a child `zen -p` in a temporary copy with its own home, so
nothing reaches the user's workspace or `~/.zen`; a check program decides after the run."""
