from app.history import remember
from app.paths import NOTES_FILE


def save_note(user: str, text: str) -> None:
    with NOTES_FILE.open("a", encoding="utf-8") as f:
        f.write(text + "\n")
    remember(user, "saved a note")


def read_notes() -> list[str]:
    return NOTES_FILE.read_text(encoding="utf-8").splitlines()
