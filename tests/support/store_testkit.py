"""Tables of a test's own on the store's engine: ``engine_with(metadata, url)``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, MetaData

from ordergate.store import engine_for, normalise_url

__all__ = ["engine_with"]


@contextmanager
def engine_with(metadata: MetaData, url: str) -> Iterator[Engine]:
    """An engine on ``url`` with the store's rules and ``metadata``'s tables created."""
    engine = engine_for(normalise_url(url))
    metadata.create_all(engine)
    try:
        yield engine
    finally:
        engine.dispose()
