"""Count the words of a file."""

import argparse
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("file")
    parser.add_argument("--lines", action="store_true")
    args = parser.parse_args()
    text = Path(args.file).read_text(encoding="utf-8")
    print(len(text.splitlines()) if args.lines else len(text.split()))


if __name__ == "__main__":
    main()
