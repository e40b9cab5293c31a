"""The store's exceptions.

::

    OrdergateError
    └── StoreError                  the database cannot be opened or used as asked
        └── StoreSchemaError        its schema is newer than this code, or unreadable

Messages name the database (its path or backend) and the revision, never a URL's password.
"""

from __future__ import annotations

from ordergate.core import OrdergateError

__all__ = ["StoreError", "StoreSchemaError"]


class StoreError(OrdergateError):
    """Root of the store's errors."""

    code = "store_error"


class StoreSchemaError(StoreError):
    """The database was written by a newer ordergate, or its schema version is unreadable."""

    code = "store_schema"
