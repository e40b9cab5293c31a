"""Migrations: each package owns its tables, their migrations and its own version table.

A package that keeps tables in ordergate's database (``OWNERS``: the ledger's filings, events,
reservations and chains; execution's paper book; the gateway's connections and grants; the
owner's guard; the record's grades; the sandbox venue's persisted books) has its Alembic
revisions in its own ``migrations/versions`` folder and records how far it is in its own
version table, ``alembic_version_<package>``. ``migrate`` brings every owner to its head, one
after the other, in one transaction that holds the write lock (on Postgres also the migration
lock), so two processes opening a fresh database migrate in turn and a failed migration leaves
nothing half done.

Revision ids are numbered across the database, whichever package writes the next one (0020
is next), so a number names one moment of the whole schema: ``migrate(engine, "0005")`` brings
each owner to its last revision at or before 0005 (tests of the migrations start there).

Until this layout one chain of revisions 0001–0008, in the ledger's folder, held every
package's tables, its place in the single table ``alembic_version``. A database at any of
those revisions moves to this layout as it is opened: each owner's version table is stamped
at its last revision at or before that one, in the same transaction, and ``alembic_version``
dropped. Nothing else changes: no table is rebuilt and no row touched.

Alembic is imported only when something is due: ``_heads.at_head`` first reads the version
tables (a cheap read) and, when every owner is at its head, nothing more is done.

The owners are named here, as data, not imported: the store sits below every package that
uses it and runs their migration scripts from their folders.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from ordergate.store._engine import MIGRATION_KEY, WRITE_OPTION
from ordergate.store._errors import StoreSchemaError
from ordergate.store._heads import at_head

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

__all__ = ["LEGACY_REVISIONS", "OWNERS", "Owner", "alembic_config", "migrate"]

_PACKAGES = Path(__file__).parent.parent
_ENVIRONMENT = Path(__file__).parent / "alembic"
# The single chain every package's tables shared until each package owned its own.
LEGACY_REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008")
_LEGACY_TABLE = "alembic_version"


@dataclass(frozen=True)
class Owner:
    """A package that keeps tables: its migrations folder and its version table."""

    name: str

    @property
    def versions(self) -> Path:
        return _PACKAGES / self.name / "migrations" / "versions"

    @property
    def version_table(self) -> str:
        return f"alembic_version_{self.name}"


# In the order they migrate (none of their tables refers to another owner's).
OWNERS = (
    Owner("ledger"),
    Owner("execution"),
    Owner("gateway"),
    Owner("owner"),
    Owner("record"),
    Owner("sandbox"),
)


def alembic_config(owner: Owner, connection: Connection) -> Config:
    """Alembic's configuration for ``owner``'s revisions, run on ``connection``."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_ENVIRONMENT))
    config.set_main_option("path_separator", "os")
    config.set_main_option("version_locations", str(owner.versions))
    config.attributes["connection"] = connection
    config.attributes["version_table"] = owner.version_table
    return config


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring every owner's tables to this code's head (or, for tests of the migrations, to
    where the whole schema was at ``revision``); refuse a database from a newer ordergate."""
    with engine.connect() as connection:
        connection.execution_options(**{WRITE_OPTION: True})
        with connection.begin():
            if engine.dialect.name == "postgresql":
                # Two replicas opening a fresh database must not both create the tables.
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_KEY}
                )
            owners = [(owner.version_table, owner.versions) for owner in OWNERS]
            if revision == "head" and at_head(connection, owners, _LEGACY_TABLE):
                return
            _adopt_single_chain(connection)
            for owner in OWNERS:
                _migrate_owner(connection, owner, revision)


def _migrate_owner(connection: Connection, owner: Owner, revision: str) -> None:
    from alembic import command
    from alembic.script import ScriptDirectory

    config = alembic_config(owner, connection)
    scripts = ScriptDirectory.from_config(config)
    current = _current(connection, owner, scripts)
    if revision == "head":
        target = set(scripts.get_heads())
    else:
        at = _at_or_before(scripts, revision)
        if at is None:
            return  # this owner had no tables yet at ``revision``
        target = {at}
    if set(current) != target:
        command.upgrade(config, "heads" if revision == "head" else target.pop())


def _current(connection: Connection, owner: Owner, scripts: ScriptDirectory) -> tuple[str, ...]:
    from alembic.runtime.migration import MigrationContext
    from alembic.util.exc import CommandError

    context = MigrationContext.configure(connection, opts={"version_table": owner.version_table})
    current = context.get_current_heads()
    for found in current:
        try:
            scripts.get_revision(found)
        except CommandError:
            raise StoreSchemaError(
                f"the {owner.name} schema revision {found!r} is newer than this ordergate "
                "knows; upgrade ordergate before opening it"
            ) from None
    return current


def _at_or_before(scripts: ScriptDirectory, revision: str) -> str | None:
    """The owner's last revision numbered at or before ``revision`` (ids are numbered across
    the database, so a plain comparison of the fixed-width numbers orders them)."""
    known = [script.revision for script in scripts.walk_revisions() if script.revision <= revision]
    return max(known, default=None)


def _adopt_single_chain(connection: Connection) -> None:
    """Move a database kept by the single chain (``alembic_version``) to one version table per
    owner, at the same moment of the schema; leave any other database alone."""
    if not inspect(connection).has_table(_LEGACY_TABLE):
        return
    found = connection.execute(text(f"SELECT version_num FROM {_LEGACY_TABLE}")).scalars().all()
    if len(found) != 1 or found[0] not in LEGACY_REVISIONS:
        raise StoreSchemaError(
            f"the database's schema revision {', '.join(map(repr, found)) or 'none'} is newer "
            "than this ordergate knows; upgrade ordergate before opening it"
        )
    from alembic import command
    from alembic.script import ScriptDirectory

    for owner in OWNERS:
        config = alembic_config(owner, connection)
        at = _at_or_before(ScriptDirectory.from_config(config), found[0])
        if at is not None:
            command.stamp(config, at)
    connection.execute(text(f"DROP TABLE {_LEGACY_TABLE}"))
