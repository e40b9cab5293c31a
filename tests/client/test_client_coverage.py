"""Every tool in the reference capture has a typed method, and no method names a tool that isn't.

A family declares the tools it calls as ``TOOL_*`` string constants in its ``_client`` module,
next to the methods that call them (``TOOL_QUOTES = "get_equity_quotes"``).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from typing import Any

import pytest
from reference import REFERENCE

import ordergate.client


def _names_in(capture: dict[str, Any]) -> set[str]:
    tools = capture["tools"]
    if isinstance(tools, dict):
        return set(tools)
    return {tool["name"] for tool in tools}


def reference_tools() -> set[str]:
    names: set[str] = set()
    for path in sorted(REFERENCE.glob("*.json")):
        names |= _names_in(json.loads(path.read_text("utf-8")))
    return names


def typed_tools() -> dict[str, list[str]]:
    """Tool name → the families whose ``_client`` module declares it."""
    declared: dict[str, list[str]] = {}
    for family in pkgutil.iter_modules(ordergate.client.__path__):
        if not family.ispkg:
            continue
        try:
            module = importlib.import_module(f"ordergate.client.{family.name}._client")
        except ModuleNotFoundError as missing:
            # A family still being written may not have its client module yet.
            if missing.name != f"ordergate.client.{family.name}._client":
                raise
            continue
        for attribute, value in vars(module).items():
            if attribute.startswith("TOOL_") and isinstance(value, str):
                declared.setdefault(value, []).append(family.name)
    return declared


def test_the_reference_capture_lists_every_live_tool() -> None:
    names = reference_tools()
    assert len(names) == 82
    assert {"get_equity_quotes", "get_trade_approval_setting", "search"} <= names


@pytest.mark.req("client.coverage.every-tool-typed")
def test_every_reference_tool_has_a_typed_method() -> None:
    missing = sorted(reference_tools() - set(typed_tools()))
    assert missing == []


def test_no_typed_method_names_a_tool_the_reference_does_not_list() -> None:
    unknown = sorted(set(typed_tools()) - reference_tools())
    assert unknown == []


def test_no_tool_is_typed_in_two_families() -> None:
    doubled = {name: families for name, families in typed_tools().items() if len(families) > 1}
    assert doubled == {}
