"""The README's table of denial codes names every code the policy refuses with."""

from __future__ import annotations

import re
from pathlib import Path

from ordergate.policy import ReasonCode

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_policy_reason_code_is_in_the_readmes_denial_table() -> None:
    text = README.read_text(encoding="utf-8")
    table = text.split("### Denial codes", 1)[1].split("\n\n", 3)[2]
    named = set(re.findall(r"`([a-z_]+(?::<field>)?)`", table))
    for code in ReasonCode:
        wanted = "missing_data:<field>" if code.value.startswith("missing_data:") else code.value
        assert wanted in named, code
