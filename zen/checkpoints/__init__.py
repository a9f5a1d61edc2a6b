"""Checkpoints: snapshots of the workspace zen can rewind to, kept outside the user's `.git`.

`shadow.py` runs git on a private shadow repository (GIT_DIR under `~/.zen/snapshots/`,
GIT_WORK_TREE the workspace); `adopted.py` keeps what zen's own file tools touch even where
snapshots look away; `scope.py` keeps zen's own state out; `store.py` records checkpoints and
applies restores that `plan.py` works out first; `copies.py` is the fallback without a git
executable (copies of the files zen's tools write).
"""
