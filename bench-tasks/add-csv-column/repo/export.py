"""Export orders to CSV for the accountants."""

import csv
import io

from orders import SAMPLE, Order


def to_csv(orders: list[Order]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "customer", "total"])
    for order in orders:
        writer.writerow([order.id, order.customer, f"{order.total:.2f}"])
    return out.getvalue()


if __name__ == "__main__":
    print(to_csv(SAMPLE), end="")
