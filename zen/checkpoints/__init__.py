"""Checkpoints: snapshots of the workspace zen can rewind to, kept outside the user's `.git`.

`shadow.py` runs git on a private shadow repository (GIT_DIR under `~/.zen/snapshots/`,
GIT_WORK_TREE the workspace); `store.py` records checkpoints and plans and applies restores;
`copies.py` is the fallback without a git executable (copies of the files zen's tools write).
"""
