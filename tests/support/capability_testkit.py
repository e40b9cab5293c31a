"""Tool descriptors for the capability, mapping and readiness tests: the sandbox's 82 tools, and
a surface whose names and property names are not Robinhood's (names we do not control)."""

from __future__ import annotations

from typing import Any

from ordergate.inventory import load_inventory


def tool(
    name: str, *properties: str, required: tuple[str, ...] = (), description: str = ""
) -> dict[str, Any]:
    """An MCP tool descriptor whose properties are all strings, ``additionalProperties: false``."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {prop: {"type": "string"} for prop in properties},
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    descriptor: dict[str, Any] = {"name": name, "inputSchema": schema}
    if description:
        descriptor["description"] = description
    return descriptor


def sandbox_tools() -> list[dict[str, Any]]:
    """The 82 tools the sandbox serves, as ``tools/list`` describes them."""
    return [
        {"name": spec.name, "inputSchema": spec.input_schema} for spec in load_inventory().values()
    ]


def without(tools: list[dict[str, Any]], *names: str) -> list[dict[str, Any]]:
    return [t for t in tools if t["name"] not in names]


CRYPTO_TOOL_NAMES = (
    "preview_crypto_order",
    "place_crypto_order",
    "cancel_crypto_order",
    "get_crypto_quotes",
)

# One tool per capability, named and shaped as another venue might: no Robinhood name, and
# property names from the synonym tables (pair, ticker, order_type, amount, account_id…).
FOREIGN: dict[str, dict[str, Any]] = {
    "review_order": tool(
        "preview_stock_trade",
        "account_id", "ticker", "order_side", "order_type", "qty", "limit_price",
        required=("account_id", "ticker", "order_side", "order_type"),
    ),
    "place_order": tool(
        "submit_stock_trade",
        "account_id", "ticker", "order_side", "order_type", "qty", "limit_price",
        "client_order_id",
        required=("account_id", "ticker", "order_side", "order_type"),
    ),
    "cancel_order": tool("cancel_stock_order", "account_id", "order_id", required=("order_id",)),
    "list_orders": tool("list_stock_orders", "account_id", "cursor"),
    "list_positions": tool("list_stock_holdings", "account_id"),
    "quotes": tool("fetch_stock_quotes", "tickers", required=("tickers",)),
    "accounts": tool("list_brokerage_accounts"),
    "crypto_preview": tool(
        "estimate_crypto_trade", "pair", "side", "order_type", "amount",
        required=("pair", "side", "order_type"),
    ),
    "crypto_place": tool(
        "submit_crypto_trade", "pair", "side", "order_type", "amount", "quantity",
        required=("pair", "side", "order_type"),
    ),
    # Crypto by its schema only: the rhs account, no "crypto" in the name.
    "crypto_cancel": tool("cancel_coin_order", "rhs_account_number", "order_id"),
    "crypto_quotes": tool("get_pair_quotes", "pairs", required=("pairs",)),
    "option_review": tool("simulate_options_order", "account_id", "legs", "quantity", "price"),
    "option_place": tool(
        "submit_options_order", "account_id", "legs", "quantity", "price", "direction"
    ),
    "option_cancel": tool("cancel_options_order", "account_id", "id"),
    "option_chains": tool("list_options_chains", "underlying"),
    "historicals": tool("get_stock_bars", "symbols", "timeframe", required=("symbols",)),
    "portfolio": tool("fetch_portfolio_summary", "account_id"),
}  # fmt: skip
