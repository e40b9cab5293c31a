"""The captured tool surface shipped with the package matches the reference capture."""

from __future__ import annotations

import json
from typing import Any

from reference import REFERENCE

from ordergate.inventory import ToolClass, load_inventory


def _reference(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((REFERENCE / name).read_text())
    return loaded


def test_every_captured_tool_is_known_once() -> None:
    inventory = load_inventory()
    listed = {t["name"] for t in _reference("inventory-2026-09-21.json")["tools"]}
    contract = set(_reference("contract-1.7.0.json")["tools"])
    assert set(inventory) == listed | contract
    assert len(inventory) == 82


def test_contract_tools_carry_exact_captured_schemas() -> None:
    inventory = load_inventory()
    for file_name in (
        "contract-1.7.0.json",
        "market-data-1.7.0.json",
        "options-research-1.8.0.json",
    ):
        for name, captured in _reference(file_name)["tools"].items():
            spec = inventory[name]
            assert spec.input_schema == captured["inputSchema"], name
            assert spec.output_schema == captured["outputSchema"], name
            assert spec.annotations == captured.get("annotations"), name


def test_inventory_only_tools_carry_the_captured_input_schema_and_class() -> None:
    inventory = load_inventory()
    for captured in _reference("inventory-2026-09-21.json")["tools"]:
        spec = inventory[captured["name"]]
        assert spec.input_schema == captured["inputSchema"]
        assert spec.tool_class == ToolClass(captured["class"])


def test_approval_setting_tool_absent_from_the_inventory_is_a_read() -> None:
    spec = load_inventory()["get_trade_approval_setting"]
    assert spec.tool_class is ToolClass.READ
    assert spec.in_contract
