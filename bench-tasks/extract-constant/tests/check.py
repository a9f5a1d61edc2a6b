"""Check for the `extract-constant` task: exit 0 when solved.

Usage: python check.py WORKSPACE ANSWER_FILE (zen bench runs it after the agent ended).
"""

import sys
from pathlib import Path

ws = Path(sys.argv[1])
answer = Path(sys.argv[2]).read_text(encoding="utf-8", errors="replace")


def fail(why: str) -> None:
    print(why)
    sys.exit(1)


def broken(kind: type, error: BaseException, _tb: object) -> None:
    """The workspace's code raised (it may not even import): not solved, not a broken check."""
    fail(f"the workspace's code raised {kind.__name__}: {str(error)[:300]}")


sys.excepthook = broken


def shown(text: str, size: int) -> str:
    """The end of a child's output, its traceback header renamed (zen bench reads that header
    in a check's own output as the check crashing)."""
    return text.strip()[size:].replace("Traceback (most recent call last)", "traceback")


import ast  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

FILES = ("invoice.py", "quote.py", "receipt.py")
if not (ws / "tax.py").is_file():
    fail("tax.py does not exist")
for name in FILES:
    tree = ast.parse((ws / name).read_text(encoding="utf-8"))
    numbers = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) is float]
    if 0.2 in numbers or 1.2 in numbers:
        fail(f"{name} still writes the rate as a number")
    if "VAT_RATE" not in ast.unparse(tree):
        fail(f"{name} does not use VAT_RATE")
PROBE = """
import invoice, quote, receipt, tax
print(tax.VAT_RATE)
print(invoice.invoice_total(100))
print(quote.quote_line("tea", 10))
print(receipt.vat_part(120))
"""


def run_with(rate: str | None) -> list[str]:
    """The three functions' results, with tax.py as written or with another rate."""
    with tempfile.TemporaryDirectory() as tmp:
        for name in (*FILES, "tax.py"):
            shutil.copy(ws / name, tmp)
        if rate is not None:
            (Path(tmp) / "tax.py").write_text(f"VAT_RATE = {rate}\n", encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-c", PROBE], cwd=tmp, capture_output=True, text=True, timeout=30
        )
        if done.returncode != 0:
            fail("the modules do not run: " + shown(done.stderr, -300))
        return done.stdout.splitlines()


if run_with(None) != ["0.2", "120.0", "tea: 10.00 + 2.00 VAT", "20.0"]:
    fail(f"the results changed: {run_with(None)}")
if run_with("0.1") != ["0.1", "110.0", "tea: 10.00 + 1.00 VAT", "10.91"]:
    fail("with VAT_RATE = 0.1 in tax.py the results do not follow it")
