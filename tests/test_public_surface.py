"""Each package's public names are a decision: adding one means changing this list."""

from __future__ import annotations

import importlib

import pytest

SURFACE = {
    "ordergate": {"ConfigError", "DecimalFieldError", "OrdergateError", "ToolError", "__version__"},
    "ordergate.core": {
        "ZERO", "AcceleratedClock", "Clock", "ClockMode", "ConfigError", "CryptoOrderState",
        "CryptoOrderType", "CryptoTimeInForce", "DecimalFieldError", "MarketHours",
        "OptionDirection", "OptionPositionEffect", "OrderState", "OrderType", "OrdergateError",
        "PlacedAgent", "RealtimeClock", "Secret", "Side", "SteppedClock", "TimeInForce",
        "ToolError", "make_clock", "optional_decimal", "parse_decimal", "required_decimal",
        "to_wire", "utc",
    },
    "ordergate.inventory": {"ToolClass", "ToolSpec", "load_inventory"},
    "ordergate.sandbox": {
        "DEFAULT_PORT", "Framing", "MCP_PATH", "Sandbox", "SandboxConfig", "SandboxServer",
        "build_sandbox",
    },
    "ordergate.sandbox.oauth": {"AccessGrant", "OAuthServer", "SHARED_CLIENT_ID", "TokenPair"},
    "ordergate.bench": {"BENCHES", "Summary", "json_line", "run_bench", "summarise"},
}  # fmt: skip


@pytest.mark.parametrize("module_name", sorted(SURFACE))
def test_public_surface_is_exactly_the_declared_names(module_name: str) -> None:
    module = importlib.import_module(module_name)
    exported = set(vars(module)["__all__"])
    assert exported == SURFACE[module_name]
    for name in exported:
        assert hasattr(module, name), name
