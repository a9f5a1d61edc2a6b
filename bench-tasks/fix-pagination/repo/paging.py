"""Split a list into pages for the web listing."""


def page(items: list, number: int, size: int = 10) -> list:
    """The items on page `number`; pages count from 1."""
    start = number * size
    return items[start : start + size]


def page_count(total: int, size: int = 10) -> int:
    """How many pages `total` items fill (the last one may be partial)."""
    return (total + size - 1) // size
