"""Process the jobs of a queue."""

import logging

log = logging.getLogger(__name__)


def process(job: str) -> None:
    if not job.strip():
        raise ValueError("empty job")


def run(jobs: list[str]) -> int:
    """Run every job; return how many failed."""
    failed = 0
    for job in jobs:
        log.info(f"running {job}")
        try:
            process(job)
        except ValueError as e:
            log.error(f"job {job!r} failed: {e}")
            failed += 1
    log.info(f"done: {len(jobs) - failed} ok, {failed} failed")
    return failed
