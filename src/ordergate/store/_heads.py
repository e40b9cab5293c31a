"""Whether the database is already at this code's head, read without importing Alembic.

Opening the ledger migrates it (``_migrate.migrate``), and almost always there is nothing to
do; Alembic's import alone costs a few hundred milliseconds of every command's start. So
``at_head`` first reads each owner's version table (one ``SELECT`` apiece) and compares it
with the owner's head, found from its revision files' ``revision`` and ``down_revision``
lines. Only when that says something is due, or cannot say (a second head, a file it cannot
read, a legacy ``alembic_version``), does ``migrate`` import Alembic and do what it always
did: a newer database is still refused there, never here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from sqlalchemy import Connection, inspect, text

__all__ = ["at_head", "head_of"]

_REVISION = re.compile(r'^revision(?::[^=]*)?\s*=\s*"([^"]+)"\s*$', re.MULTILINE)
_DOWN = re.compile(r"^down_revision(?::[^=]*)?\s*=\s*(.+?)\s*$", re.MULTILINE)
_QUOTED = re.compile(r'"([^"]+)"')


@cache
def head_of(versions: Path) -> str | None:
    """The one head revision of the chain in ``versions``; ``None`` when there is not exactly
    one, or a file does not say its revision plainly (then Alembic decides)."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for script in sorted(versions.glob("*.py")):
        source = script.read_text(encoding="utf-8")
        revision, down = _REVISION.findall(source), _DOWN.findall(source)
        if len(revision) != 1 or len(down) != 1:
            return None
        revisions.add(revision[0])
        parents.update(_QUOTED.findall(down[0]))
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def at_head(connection: Connection, owners: Iterable[tuple[str, Path]], legacy: str) -> bool:
    """Whether every owner (its version table and revisions folder) is at its head and no
    legacy single-chain table remains."""
    tables = set(inspect(connection).get_table_names())
    if legacy in tables:
        return False
    for table, versions in owners:
        head = head_of(versions)
        if head is None or table not in tables:
            return False
        found = connection.execute(text(f"SELECT version_num FROM {table}")).scalars().all()
        if found != [head]:
            return False
    return True
