"""The shipped copy of the reference captures is the one its README describes."""

from __future__ import annotations

import hashlib
import re

from reference import REFERENCE


def _recorded() -> dict[str, str]:
    text = (REFERENCE / "README.md").read_text("utf-8")
    checksums = text.split("## Checksums", 1)[1]
    return dict(re.findall(r"\| `([^`]+\.json)` \| `([0-9a-f]{64})` \|", checksums))


def test_every_captured_file_has_its_provenance_and_checksum_in_the_readme() -> None:
    shipped = {path.name for path in REFERENCE.glob("*.json")}
    readme = (REFERENCE / "README.md").read_text("utf-8")
    assert "copies" in readme and "## Provenance" in readme
    assert set(_recorded()) == shipped
    for name in shipped:
        assert f"| `{name}` | " in readme.split("## Checksums", 1)[0], name


def test_every_captured_file_is_byte_for_byte_the_one_recorded() -> None:
    changed = {
        name: hashlib.sha256((REFERENCE / name).read_bytes()).hexdigest()
        for name, digest in _recorded().items()
        if hashlib.sha256((REFERENCE / name).read_bytes()).hexdigest() != digest
    }
    assert changed == {}
