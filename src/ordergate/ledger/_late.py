"""``LateOrders``: filings declared not placed, watched for a day in case their order arrives.

The reconciler declares a filing ``not_placed`` (and releases its reservation) when the
broker does not know its ``ref_id`` a grace after its last event. A place call delayed past
the client's timeout and that grace can still reach the broker afterwards, and fill; so each
filing released so is kept in ``late_orders`` (in the transaction that ends it) and looked up
again for ``WATCH`` after its release. The cost is bounded by what was released within the
day, never the history: a pass asks about at most a batch, the least recently asked first
(``ix_late_orders_account``: account, looked_us), and drops the rows whose day is over.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from uuid import UUID

from sqlalchemy import BigInteger, Engine, bindparam, delete, insert, select, update

from ordergate.core import to_us
from ordergate.ledger._schema import late_orders
from ordergate.store import Statement, reading, write_transaction

__all__ = ["WATCH", "LateOrders"]

WATCH = timedelta(days=1)

_BY_ACCOUNT = late_orders.c.account == bindparam("account")
_INSERT = Statement(insert(late_orders))
_DROP = Statement(delete(late_orders).where(late_orders.c.filing_id == bindparam("b_filing")))
_EXPIRE = Statement(
    delete(late_orders).where(
        _BY_ACCOUNT, late_orders.c.released_us <= bindparam("before", type_=BigInteger)
    )
)
_NEXT = (
    select(late_orders.c.filing_id)
    .where(_BY_ACCOUNT)
    .order_by(late_orders.c.looked_us, late_orders.c.filing_id)
)
_LOOKED = Statement(update(late_orders).where(late_orders.c.filing_id == bindparam("b_filing")))


class LateOrders:
    """The filings of each account released as not placed within the last ``WATCH``."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def watch(self, filing_id: UUID | str, account: str, *, at: datetime) -> None:
        """Watch a filing released as not placed at ``at`` (joins the caller's
        transaction when one is open, so the release and the watch commit together)."""
        instant = to_us(at)
        with write_transaction(self._engine) as connection:
            _DROP.run(connection, {"b_filing": str(filing_id)})
            _INSERT.run(
                connection,
                {
                    "filing_id": str(filing_id),
                    "account": account,
                    "released_us": instant,
                    "looked_us": instant,
                },
            )

    def due(self, account: str, *, now: datetime, batch: int) -> list[UUID]:
        """Up to ``batch`` of ``account``'s watched filings, least recently looked up first,
        marked as looked up ``now``; the rows released ``WATCH`` or more before ``now`` are
        dropped first."""
        if batch < 1:
            raise ValueError("batch must be positive")
        params = {"account": account}
        with reading(self._engine) as connection:
            if connection.execute(_NEXT.limit(1), params).first() is None:
                return []  # nothing watched (the usual case): one read, no write lock
        with write_transaction(self._engine) as connection:
            _EXPIRE.run(connection, {**params, "before": to_us(now - WATCH)})
            rows = connection.execute(_NEXT.limit(batch), params).scalars().all()
            for filing_id in rows:
                _LOOKED.run(connection, {"b_filing": filing_id, "looked_us": to_us(now)})
        return [UUID(filing_id) for filing_id in rows]

    def drop(self, filing_id: UUID | str) -> None:
        """Stop watching a filing (its order was found and adopted)."""
        with write_transaction(self._engine) as connection:
            _DROP.run(connection, {"b_filing": str(filing_id)})
