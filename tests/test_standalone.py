"""The repository stands alone: no code, test, script or CI step reads outside it (issue 13 §1).

Two checks over every text file in ``src/``, ``tests/``, ``scripts/`` and ``.ci/``: no file
names the reference material kept beside a checkout (the sibling ``shared`` directory, its
design notes), and every path built from ``Path(__file__)`` by climbing parents stays inside
the repository.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCANNED = ("src", "tests", "scripts", ".ci")
_TEXT = {".py", ".md", ".toml", ".sh", ".txt", ".yaml", ".yml", ".json", ".cfg", ".ini", ""}

# Spelled in pieces so this file does not match itself.
_OUTSIDE = re.compile(
    "|".join(
        (
            r"\.\./" + "shared",
            r"[\"']" + "shared" + r"[\"']\s*/\s*[\"']" + "reference",
            "/work/" + "shared",
            "DESIGN" + r"\.md",
        )
    )
)
# ``Path(__file__).resolve().parents[2].parent`` and ``….parent.parent``: how far up it goes.
_CLIMB = re.compile(r"Path\(__file__\)(?:\.resolve\(\))?((?:\.parents\[\d+\]|\.parent)+)")


def _files() -> list[Path]:
    return [
        path
        for top in SCANNED
        for path in sorted((REPO / top).rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in _TEXT
    ]


def _levels(climb: str) -> int:
    levels = 0
    for step in re.findall(r"\.parents\[(\d+)\]|\.parent", climb):
        levels += int(step) + 1 if step else 1
    return levels


def test_the_scan_sees_the_source_the_tests_and_the_scripts() -> None:
    names = {path.relative_to(REPO).as_posix() for path in _files()}
    assert {"src/ordergate/__init__.py", "scripts/test", ".ci/run"} <= names


@pytest.mark.req("repo.standalone")
def test_no_file_names_material_kept_outside_the_repository() -> None:
    offenders = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in _files()
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text("utf-8", "replace").splitlines(), 1)
        if _OUTSIDE.search(line)
    ]
    assert offenders == []


@pytest.mark.req("repo.standalone")
def test_no_path_climbed_from_a_file_leaves_the_repository() -> None:
    escapes = []
    for path in _files():
        if path.suffix != ".py" or path == Path(__file__).resolve():
            continue
        for match in _CLIMB.finditer(path.read_text("utf-8")):
            # ``Path(__file__)`` is the file itself; each level climbed is one directory up.
            target = path
            for _ in range(_levels(match.group(1))):
                target = target.parent
            if not target.is_relative_to(REPO):
                escapes.append(f"{path.relative_to(REPO)}: {match.group(0)} → {target}")
    assert escapes == []


def test_a_climb_of_the_old_kind_is_caught() -> None:
    old = "Path(__file__).resolve().parents[2].parent"
    match = _CLIMB.search(old)
    assert match is not None and _levels(match.group(1)) == 4
    assert _OUTSIDE.search("x = " + repr("..") + " / 'shared' / 'reference'") is not None
