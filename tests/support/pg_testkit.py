"""Postgres for tests: the server ``ORDERGATE_TEST_PG_URL`` names (``.ci/run`` sets it), or a
skip that says how to enable the test; and a scratch database per use."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ordergate.bench._ledger import scratch_postgres

PG_ENV = "ORDERGATE_TEST_PG_URL"
PG_HOW = (
    f"Postgres tests need {PG_ENV}, e.g. "
    f"{PG_ENV}=postgresql://postgres@127.0.0.1:5432/test (a server where CREATE DATABASE works)"
)


def pg_server() -> str:
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.skip(PG_HOW)
    return url


@contextmanager
def database(kind: str, tmp_path: Path) -> Iterator[str]:
    """A fresh ledger database URL: ``sqlite`` (a file in ``tmp_path``) or ``postgres``."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.db'}"
        return
    with scratch_postgres(pg_server()) as url:
        yield url
