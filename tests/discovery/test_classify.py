"""Classification by the words of a tool's name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reference import REFERENCE

from ordergate.core import ConfigError
from ordergate.discovery._classify import Classifier, classify, load_overrides, name_words
from ordergate.inventory import ToolClass


def test_every_captured_tool_is_classed_as_the_capture_classes_it() -> None:
    inventory = json.loads((REFERENCE / "inventory-2026-09-21.json").read_text())["tools"]
    wrong = {
        t["name"]: t["class"] for t in inventory if classify(t["name"]) != ToolClass(t["class"])
    }
    assert wrong == {}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("transfer_funds", ToolClass.MONEY),
        ("replace_option_order", ToolClass.MONEY),
        ("frobnicate_account", ToolClass.WRITE_CONFIRM),
        ("", ToolClass.WRITE_CONFIRM),
        ("get_retirement_enrollment_link", ToolClass.ENROLL_LINK),
        ("Get-Equity-Quotes", ToolClass.READ),
    ],
)
def test_names_outside_the_capture_are_classed_by_their_verb(
    name: str, expected: ToolClass
) -> None:
    assert classify(name) == expected


def test_an_unknown_verb_counts_as_a_write_never_a_read() -> None:
    assert classify("sync_everything") is ToolClass.WRITE_CONFIRM


def test_words_split_on_underscores() -> None:
    assert name_words("get_equity_quotes") == ("get", "equity", "quotes")


def test_an_override_file_pins_corrections(tmp_path: Path) -> None:
    path = tmp_path / "classes.toml"
    path.write_text('[classes]\nget_magic_money = "money"\n')
    classifier = Classifier(load_overrides(path))
    assert classifier("get_magic_money") is ToolClass.MONEY
    assert classifier("get_accounts") is ToolClass.READ


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[classes]\nget_x = "harmless"\n', "classes.get_x"),
        ('[klasses]\nget_x = "read"\n', "klasses"),
        ("classes = 3\n", "classes"),
    ],
)
def test_a_bad_override_file_is_refused_naming_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "classes.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as raised:
        load_overrides(path)
    assert raised.value.key == key


def test_an_unreadable_override_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "classes.toml"
    path.write_text("[classes\n")
    with pytest.raises(ConfigError):
        load_overrides(path)
