"""The Robinhood tool surface as captured: one ``ToolSpec`` per tool, merged from the pinned files.

Precedence (newest evidence wins): the contract files (``contract-1.7.0``,
``market-data-1.7.0``, ``options-research-1.8.0``, with exact input and output schemas and
annotations) over the 81-tool inventory of 2026-09-21 (input schemas only).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

__all__ = ["ToolClass", "ToolSpec", "load_inventory"]

_CONTRACT_FILES = ("contract-1.7.0.json", "market-data-1.7.0.json", "options-research-1.8.0.json")
_INVENTORY_FILE = "inventory-2026-09-21.json"


class ToolClass(StrEnum):
    """What a tool does, as the captured inventory classes it."""

    READ = "read"
    SIMULATE = "simulate"
    MONEY = "money"
    CANCEL = "cancel"
    WRITE_CONFIRM = "write_confirm"
    ENROLL_LINK = "enroll_link"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    tool_class: ToolClass
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None
    sources: tuple[str, ...] = field(default=())

    @property
    def in_contract(self) -> bool:
        """True when the exact output schema was captured."""
        return self.output_schema is not None


def _read(name: str) -> dict[str, Any]:
    text = resources.files("ordergate.inventory").joinpath("data", name).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def load_inventory() -> MappingProxyType[str, ToolSpec]:
    """Every known tool by name, in name order. Read once; the mapping is read-only."""
    inventory = _read(_INVENTORY_FILE)
    classes: dict[str, ToolClass] = {}
    specs: dict[str, ToolSpec] = {}
    for tool in inventory["tools"]:
        classes[tool["name"]] = ToolClass(tool["class"])
        specs[tool["name"]] = ToolSpec(
            name=tool["name"],
            tool_class=ToolClass(tool["class"]),
            input_schema=tool["inputSchema"],
            sources=(_INVENTORY_FILE,),
        )
    for file_name in _CONTRACT_FILES:
        for name, tool in _read(file_name)["tools"].items():
            previous = specs.get(name)
            # Tools the inventory never saw (get_trade_approval_setting) are reads.
            tool_class = classes.get(name, ToolClass.READ)
            specs[name] = ToolSpec(
                name=name,
                tool_class=tool_class,
                input_schema=tool["inputSchema"],
                output_schema=tool.get("outputSchema"),
                annotations=tool.get("annotations"),
                sources=(*(previous.sources if previous else ()), file_name),
            )
    return MappingProxyType(dict(sorted(specs.items())))
