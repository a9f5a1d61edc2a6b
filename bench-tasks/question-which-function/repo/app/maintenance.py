from app.paths import AUDIT_FILE


def rotate() -> None:
    """Start a new audit log; keep the previous one as audit.log.1."""
    if AUDIT_FILE.exists():
        AUDIT_FILE.replace(AUDIT_FILE.with_name("audit.log.1"))
