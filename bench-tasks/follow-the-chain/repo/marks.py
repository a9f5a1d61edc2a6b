import tone


def closing() -> str:
    return tone.MARKS[tone.current()]
