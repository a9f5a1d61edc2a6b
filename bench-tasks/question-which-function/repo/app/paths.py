from pathlib import Path

DATA = Path("data")
NOTES_FILE = DATA / "notes.txt"
AUDIT_FILE = DATA / "audit.log"
