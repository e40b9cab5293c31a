"""The database as its own layer: the engine, transactions and locks, one time encoding,
migrations, and the one way to run a blocking call from async code.

Every package that keeps tables in ordergate's database (SQLite by default, Postgres by URL)
opens and writes it through here; each owns its tables and their migrations (see
``_migrate``). The store knows no package's tables: it is below all of them.
"""

from ordergate.store._blocking import blocking
from ordergate.store._engine import (
    ACCOUNT_LOCKS,
    BUSY_TIMEOUT_MS,
    FILINGS_GATE,
    account_lock_params,
    default_url,
    engine_for,
    lock_accounts,
    normalise_url,
    purge_freed,
    take_locks,
    write_transaction,
)
from ordergate.store._errors import StoreError, StoreSchemaError
from ordergate.store._joining import reading, step_memo
from ordergate.store._migrate import migrate
from ordergate.store._statements import Statement
from ordergate.store._time import iso, parse_iso
from ordergate.store._widths import UUID_WIDTH

__all__ = [
    "ACCOUNT_LOCKS",
    "BUSY_TIMEOUT_MS",
    "FILINGS_GATE",
    "UUID_WIDTH",
    "Statement",
    "StoreError",
    "StoreSchemaError",
    "account_lock_params",
    "blocking",
    "default_url",
    "engine_for",
    "iso",
    "lock_accounts",
    "migrate",
    "normalise_url",
    "parse_iso",
    "purge_freed",
    "reading",
    "step_memo",
    "take_locks",
    "write_transaction",
]
