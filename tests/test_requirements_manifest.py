"""Every requirement in the manifest is pinned by a test, and every pinned id is in it."""

from __future__ import annotations

import re
from pathlib import Path

from requirements import REQUIREMENTS

TESTS = Path(__file__).resolve().parent
MARK = re.compile(r"""pytest\.mark\.req\(\s*["']([^"']+)["']\s*\)""")


def _pinned() -> set[str]:
    found: set[str] = set()
    for path in TESTS.rglob("test_*.py"):
        found.update(MARK.findall(path.read_text()))
    return found


def test_every_requirement_has_a_test() -> None:
    assert set(REQUIREMENTS) - _pinned() == set()


def test_every_pinned_requirement_is_in_the_manifest() -> None:
    assert _pinned() - set(REQUIREMENTS) == set()
