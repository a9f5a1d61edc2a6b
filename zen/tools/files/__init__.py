"""What read-file, write-file and edit-file share, one job per module: `regular` (the Target,
FileError, opening regular files safely), `targets` (confinement and the rules for a path),
`text` (reading and decoding), `safe_write` (atomic writes), `diffs`, `auto_memo`.
"""
