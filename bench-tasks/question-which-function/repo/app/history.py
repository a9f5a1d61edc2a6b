from datetime import datetime, timezone

from app.paths import AUDIT_FILE


def remember(user: str, action: str) -> None:
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    with AUDIT_FILE.open("a", encoding="utf-8") as f:
        f.write(f"{stamp} {user} {action}\n")
