"""Pick releases from a list of git tags such as `v1.2.3`."""


def parse(tag: str) -> tuple[int, ...]:
    """`v1.10.2` -> (1, 10, 2)."""
    return tuple(int(part) for part in tag.lstrip("v").split("."))


def latest(tags: list[str]) -> str:
    """The tag of the highest version."""
    return max(tags)


def is_release(tag: str) -> bool:
    """Tags like `v1.2.3`; not `v1.2.3-rc1` or `nightly`."""
    try:
        parse(tag)
    except ValueError:
        return False
    return tag.startswith("v")
