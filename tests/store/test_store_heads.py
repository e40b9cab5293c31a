"""Opening a database already at its head reads the version tables and never imports Alembic;
anything else (behind, ahead, a second head, a legacy table) goes to Alembic as before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from ordergate.store import StoreSchemaError, engine_for, migrate, normalise_url
from ordergate.store._heads import at_head, head_of
from ordergate.store._migrate import OWNERS

pytestmark = pytest.mark.req("store.owned-migrations")


def _chain(folder: Path, *scripts: tuple[str, str | None]) -> Path:
    folder.mkdir()
    for revision, down in scripts:
        parent = "None" if down is None else f'"{down}"'
        (folder / f"{revision}_x.py").write_text(
            f'revision = "{revision}"\ndown_revision: str | None = {parent}\n'
        )
    return folder


def test_the_head_of_a_chain_is_the_revision_no_other_names_as_its_parent(tmp_path: Path) -> None:
    assert head_of(_chain(tmp_path / "one", ("0001", None), ("0003", "0001"))) == "0003"


def test_a_chain_with_two_heads_or_an_unreadable_script_has_no_head_here(tmp_path: Path) -> None:
    assert (
        head_of(_chain(tmp_path / "two", ("0001", None), ("0002", "0001"), ("0003", "0001")))
        is None
    )
    odd = _chain(tmp_path / "odd", ("0001", None))
    (odd / "0002_x.py").write_text("revision = make_id()\ndown_revision = '0001'\n")
    assert head_of(odd) is None


def test_the_owners_heads_are_what_alembic_says(tmp_path: Path) -> None:
    from alembic.script import ScriptDirectory

    from ordergate.store._migrate import alembic_config

    engine = create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    with engine.connect() as connection:
        for owner in OWNERS:
            scripts = ScriptDirectory.from_config(alembic_config(owner, connection))
            assert [head_of(owner.versions)] == list(scripts.get_heads()), owner.name


def _owners() -> list[tuple[str, Path]]:
    return [(owner.version_table, owner.versions) for owner in OWNERS]


def test_a_migrated_database_is_at_head_and_one_behind_or_ahead_is_not(tmp_path: Path) -> None:
    engine = engine_for(normalise_url(f"sqlite:///{tmp_path / 'ledger.db'}"))
    with engine.connect() as connection:
        assert not at_head(connection, _owners(), "alembic_version")  # empty: no tables
    migrate(engine)
    table = OWNERS[-1].version_table
    with engine.begin() as connection:
        assert at_head(connection, _owners(), "alembic_version")
        connection.execute(text(f"UPDATE {table} SET version_num = '9999'"))
        assert not at_head(connection, _owners(), "alembic_version")
    with pytest.raises(StoreSchemaError, match="newer than this ordergate knows"):
        migrate(engine)  # the fast path never decides a refusal: Alembic's path does
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32))"))
        assert not at_head(connection, _owners(), "alembic_version")
    engine.dispose()


def test_opening_a_ledger_at_head_does_not_import_alembic(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    migrate(engine_for(normalise_url(url)))
    probe = (
        "import sys\n"
        "from ordergate.store import engine_for, migrate, normalise_url\n"
        f"migrate(engine_for(normalise_url({url!r})))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
