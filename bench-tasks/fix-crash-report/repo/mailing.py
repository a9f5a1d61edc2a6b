"""Print the mailing list from contacts.csv: one `Name <email>` line per contact."""

import csv


def mailing_list(path: str) -> list[str]:
    with open(path, newline="", encoding="utf-8") as f:
        return [f"{row['name']} <{row['email'].lower()}>" for row in csv.DictReader(f)]


if __name__ == "__main__":
    for line in mailing_list("contacts.csv"):
        print(line)
