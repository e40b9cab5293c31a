"""Caller tokens on the ledger: whose a caller name is, each token minted, and the denylist.

A caller token is verified by its signature alone (``ordergate.callers``), so what the ledger
adds is what a signature cannot say:

- **A name belongs to one profile.** The first mint of a name claims it for that mint's
  profile (``caller_names``, one row a name, its primary key making the claim one insert
  every replica agrees on); a later mint of the name for another profile is refused
  (``claim_name`` answers the profile that holds it). So a read-only token cannot be minted
  as ``nightly-bot`` when ``nightly-bot`` trades.
- **Each token is one mint** (``caller_mints``: its mint id, never the token), and its caller's
  identity on the record carries that id (``caller_identity``), so two mints of one name
  share no filings and no budget.
- **Every token is revocable before it expires**: revoking sets ``revoked_at`` on its mint's
  row, and every caller-token request reads that row by its primary key (``is_revoked``), on
  whichever replica it reaches. Nothing caches the answer, so a revocation holds from the
  moment it commits, on every process sharing the ledger.

Functions here block (they run in a worker thread on a request's path).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from ordergate.callers import CallerClaims
from ordergate.gateway._schema import caller_mints, caller_names
from ordergate.store import iso, write_transaction

__all__ = [
    "claim_name",
    "is_revoked",
    "list_mints",
    "name_profile",
    "record_mint",
    "revoke_mints",
]


def name_profile(engine: Engine, caller: str) -> str | None:
    """The profile ``caller`` was first minted for, or ``None`` for a name never minted."""
    with engine.connect() as db:
        found = db.execute(
            select(caller_names.c.profile).where(caller_names.c.caller == caller)
        ).scalar_one_or_none()
    return None if found is None else str(found)


def claim_name(engine: Engine, caller: str, profile: str, now: datetime) -> str:
    """Claim ``caller`` for ``profile`` unless it is claimed already; the profile that holds
    the name after this (``profile`` itself, or another: then the mint must be refused)."""
    held = name_profile(engine, caller)
    if held is not None:
        return held
    try:
        with write_transaction(engine) as tx:
            tx.execute(
                insert(caller_names).values(caller=caller, profile=profile, created_at=iso(now))
            )
    except IntegrityError:  # another process claimed it between the read and the insert
        held = name_profile(engine, caller)
        assert held is not None, "a name whose insert collided is claimed"
        return held
    return profile


def record_mint(
    engine: Engine, claims: CallerClaims, connection_id: str | None, now: datetime
) -> None:
    """Record a freshly minted token's mint (what revoking it and listing it read)."""
    with write_transaction(engine) as tx:
        tx.execute(
            insert(caller_mints).values(
                mint_id=claims.mint_id,
                caller=claims.caller,
                profile=claims.profile,
                connection_id=connection_id,
                created_at=iso(now),
                expires_at=iso(claims.expires_at),
                revoked_at=None,
            )
        )


def is_revoked(engine: Engine, mint_id: str) -> bool:
    """Whether the token of ``mint_id`` was revoked (one read by the primary key)."""
    with engine.connect() as db:
        revoked_at = db.execute(
            select(caller_mints.c.revoked_at).where(caller_mints.c.mint_id == mint_id)
        ).scalar_one_or_none()
    return revoked_at is not None


def revoke_mints(engine: Engine, caller: str, mint_id: str | None, now: datetime) -> list[str]:
    """Revoke every unrevoked token minted for ``caller`` (or only the one of ``mint_id``):
    the mint ids revoked now, none when there was nothing left to revoke."""
    where = [caller_mints.c.caller == caller, caller_mints.c.revoked_at.is_(None)]
    if mint_id is not None:
        where.append(caller_mints.c.mint_id == mint_id)
    with write_transaction(engine) as tx:
        ids = [
            str(found)
            for found in tx.execute(select(caller_mints.c.mint_id).where(*where)).scalars()
        ]
        if ids:
            tx.execute(
                update(caller_mints)
                .where(caller_mints.c.mint_id.in_(ids))
                .values(revoked_at=iso(now))
            )
    return ids


def list_mints(engine: Engine, *, limit: int) -> list[dict[str, Any]]:
    """The tokens minted, newest first: name, profile, mint id, bound connection, when minted,
    when it expires and when it was revoked (``None`` while it was not)."""
    query = select(caller_mints).order_by(caller_mints.c.created_at.desc()).limit(limit)
    with engine.connect() as db:
        return [dict(row._mapping) for row in db.execute(query)]
