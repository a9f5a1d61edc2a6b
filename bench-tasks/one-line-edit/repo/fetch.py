from config import MAX_RETRIES, TIMEOUT_SECONDS


def plan() -> str:
    return f"{MAX_RETRIES} tries, {TIMEOUT_SECONDS}s each"
