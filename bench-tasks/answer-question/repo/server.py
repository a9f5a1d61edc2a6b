import sys

from settings import BASE_PORT, OFFSET


def port_from(argv: list[str]) -> int:
    if len(argv) > 1:
        return int(argv[1])
    return BASE_PORT + OFFSET


if __name__ == "__main__":
    print(f"listening on {port_from(sys.argv)}")
