"""The paper book's tables as SQLAlchemy Core metadata, in ordergate's database beside the
ledger (its migrations, ``ordergate/execution/migrations``, create the same shape): the
simulated broker's own orders and fills (0002), and per account and symbol the position the
fills add up to (0007). Times are ``ordergate.store.iso`` text; amounts canonical decimals.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, ForeignKey, Index, MetaData, String, Table

from ordergate.store import UUID_WIDTH

__all__ = ["metadata", "paper_fills", "paper_orders", "paper_positions"]

metadata = MetaData()

_TIME = 27
_AMOUNT = 64
paper_orders = Table(
    "paper_orders",
    metadata,
    Column("order_id", String(64), primary_key=True),
    Column("ref_id", String(UUID_WIDTH), nullable=False, unique=True),
    Column("account", String(200), nullable=False),
    Column("symbol", String(32), nullable=False),
    Column("side", String(8), nullable=False),
    Column("type", String(16), nullable=False),
    Column("quantity", String(_AMOUNT)),
    Column("dollar_amount", String(_AMOUNT)),
    Column("limit_price", String(_AMOUNT)),
    Column("stop_price", String(_AMOUNT)),
    Column("time_in_force", String(16), nullable=False),
    Column("market_hours", String(32), nullable=False),
    Column("state", String(40), nullable=False),
    Column("triggered", Boolean, nullable=False),
    Column("reject_reason", String(200)),
    Column("created_at", String(_TIME), nullable=False),
    Column("updated_at", String(_TIME), nullable=False),
    Index("ix_paper_orders_account_state", "account", "state"),
)

paper_fills = Table(
    "paper_fills",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("order_id", String(64), ForeignKey("paper_orders.order_id"), nullable=False),
    Column("account", String(200), nullable=False),
    Column("symbol", String(32), nullable=False),
    Column("side", String(8), nullable=False),
    Column("quantity", String(_AMOUNT), nullable=False),
    Column("price", String(_AMOUNT), nullable=False),
    Column("executed_at", String(_TIME), nullable=False),
    Index("ix_paper_fills_order", "order_id"),
    Index("ix_paper_fills_account", "account", "symbol"),
)

# Migration 0007: per account and symbol, the signed shares and the net cash the fills cost
# (buys' cost minus sells' proceeds), kept with every fill, so an account is read without
# reading its fills.
paper_positions = Table(
    "paper_positions",
    metadata,
    Column("account", String(200), primary_key=True),
    Column("symbol", String(32), primary_key=True),
    Column("quantity", String(_AMOUNT), nullable=False),
    Column("cost", String(_AMOUNT), nullable=False),
)
