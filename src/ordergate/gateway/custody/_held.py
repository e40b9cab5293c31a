"""Sign-ins in flight at the upstream, held on the consent page's own row (``gateway_pending``).

Once the person approves a client and the gateway sends their browser to the upstream to sign
in, the row of that consent page (its nonce already spent) also holds, as SHA-256 only, the
``state`` the gateway sent upstream and the bind value it set as a cookie in that browser, and
the gateway's own PKCE verifier, sealed with the pending id as associated data. The page's
lifetime (10 minutes) bounds the sign-in.

``take`` finds a sign-in by the ``state`` the upstream sent back and deletes it in the same
transaction: a callback is worth one try, whatever follows (a second callback with the same
``state``, or one from another browser, finds nothing left to spend).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, delete, select, update

from ordergate.core import Clock
from ordergate.gateway._schema import gateway_pending
from ordergate.gateway.oauth._store import pending_authorization
from ordergate.gateway.oauth._values import MAX_VALUE_LENGTH, sha256_hex
from ordergate.oauth import Authorization
from ordergate.store import iso, write_transaction

__all__ = ["HeldSignIn", "SignIns"]


@dataclass(frozen=True, slots=True)
class HeldSignIn:
    """A sign-in the upstream has answered: the client's authorization it continues, and what
    the callback checks before it exchanges anything."""

    pending_id: str
    authorization: Authorization
    bind_sha256: str
    verifier_sealed: str

    def __repr__(self) -> str:
        return f"HeldSignIn(pending_id={self.pending_id!r})"


class SignIns:
    def __init__(self, engine: Engine, *, clock: Clock) -> None:
        self._engine = engine
        self._clock = clock

    def hold(
        self,
        pending_id: str,
        *,
        state: str,
        bind: str,
        verifier_sealed: str,
        profile: str | None = None,
    ) -> bool:
        """Keep the sign-in of an approved (nonce-spent, unexpired) consent page. Whether the
        page was still there to hold it."""
        table = gateway_pending.c
        with write_transaction(self._engine) as tx:
            held = tx.execute(
                update(gateway_pending)
                .where(
                    table.id == pending_id,
                    table.nonce_used.is_(True),
                    table.upstream_state_sha256.is_(None),
                    table.expires_at > iso(self._clock.now()),
                )
                .values(
                    upstream_state_sha256=sha256_hex(state),
                    bind_sha256=sha256_hex(bind),
                    upstream_verifier_sealed=verifier_sealed,
                    profile=profile,
                )
            )
        return held.rowcount == 1

    def take(self, state: str) -> HeldSignIn | None:
        """Spend the sign-in the upstream's ``state`` names; ``None`` when there is none left
        (unknown, already answered or expired)."""
        if not state or len(state) > MAX_VALUE_LENGTH:
            return None
        table = gateway_pending.c
        with write_transaction(self._engine) as tx:
            row = tx.execute(
                select(gateway_pending)
                .where(table.upstream_state_sha256 == sha256_hex(state))
                .with_for_update()
            ).first()
            if row is None:
                return None
            tx.execute(delete(gateway_pending).where(table.id == row.id))
        if row.expires_at <= iso(self._clock.now()) or row.bind_sha256 is None:
            return None
        return HeldSignIn(
            pending_id=row.id,
            authorization=pending_authorization(row),
            bind_sha256=row.bind_sha256,
            verifier_sealed=row.upstream_verifier_sealed,
        )
