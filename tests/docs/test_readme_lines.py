"""The README reads in a terminal: its prose lines fit 100 columns (tables and code blocks,
which cannot be wrapped, are left as they are)."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_prose_line_of_the_readme_fits_100_columns() -> None:
    long = []
    in_code = False
    for number, line in enumerate(README.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code or line.lstrip().startswith("|"):
            continue
        if len(line) > 100:
            long.append(f"README.md:{number} ({len(line)} columns)")
    assert long == []
