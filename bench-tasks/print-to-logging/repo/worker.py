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
        print(f"running {job}")
        try:
            process(job)
        except ValueError as e:
            print(f"job {job!r} failed: {e}")
            failed += 1
    print(f"done: {len(jobs) - failed} ok, {failed} failed")
    return failed
