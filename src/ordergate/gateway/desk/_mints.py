"""The owner's caller tokens: minting one for a caller name and a profile (a trading token
waits the owner's delay, then is minted, without a code, when asked again), each mint on the
ledger, a name belonging to the first profile it was minted for.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from ordergate.callers import MAX_TTL, MIN_TTL, CallerKey, CallerVerifier, mint
from ordergate.core import ConfigError, RealtimeClock, SteppedClock
from ordergate.gateway._caller_mints import claim_name, name_profile, record_mint
from ordergate.gateway.desk._delayed import DelayedActs
from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.desk._plans import TRADING_PERMISSIONS, Plan, mint_plan, text_param
from ordergate.gateway.oauth import GatewayStore
from ordergate.owner import Credential, DelayedAct, OwnerAct
from ordergate.profiles import Profiles
from ordergate.store import blocking

__all__ = ["CallerMints", "collect_later"]


class CallerMints:
    """Caller tokens signed with ``caller_key`` (none: minting is refused), for the
    ``profiles`` defined, their mints kept by ``store``."""

    def __init__(
        self,
        *,
        store: GatewayStore,
        delayed: DelayedActs,
        profiles: Profiles,
        caller_key: CallerKey | None,
    ) -> None:
        self._store = store
        self._delayed = delayed
        self._profiles = profiles
        self._caller_key = caller_key

    def plan(self, params: Mapping[str, Any]) -> Plan:
        """What minting with ``params`` will do, as the owner is shown it; ``DeskError`` for
        parameters that cannot be minted."""
        caller, name = text_param(params, "caller"), text_param(params, "profile")
        ttl_s, connection = params.get("ttl_s"), params.get("connection")
        if isinstance(ttl_s, bool) or not isinstance(ttl_s, int):
            raise DeskError(400, "invalid_request", "ttl_s must be a whole number of seconds.")
        if connection is not None and not isinstance(connection, str):
            raise DeskError(400, "invalid_request", "connection must be a string.")
        chosen = self._profiles.get(name)
        if chosen is None:
            defined = ", ".join(sorted(self._profiles))
            raise DeskError(400, "unknown_profile", f"No such profile (defined: {defined}).")
        if not MIN_TTL <= timedelta(seconds=ttl_s) <= MAX_TTL:
            raise DeskError(400, "invalid_ttl", "The lifetime must be 1 s to 24 h.")
        if self._caller_key is None:
            raise DeskError(
                503,
                "no_caller_key",
                "This gateway has no caller-token key: set ORDERGATE_CALLER_TOKEN_KEY or "
                "ORDERGATE_MASTER_SECRET where it runs.",
            )
        held = name_profile(self._store.engine, caller)
        if held is not None and held != name:
            raise _name_taken(held)
        request = {"caller": caller, "profile": name, "ttl_s": ttl_s, "connection": connection}
        # A trading token whose delay has passed is minted, without a code, when asked again.
        due = bool(chosen.permissions & TRADING_PERMISSIONS) and self._delayed.delays.collectable(
            OwnerAct.TOKEN_MINT, request
        )
        return mint_plan(
            caller=caller, profile=chosen, ttl_s=ttl_s, connection=connection, waited=due
        )

    async def apply(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
        """The authorised mint: the token, or, for a trading token not yet waited for, the
        act waiting the delay."""
        params = plan.params
        caller, profile = str(params["caller"]), str(params["profile"])
        key = self._caller_key
        assert key is not None, "the plan refuses a desk without a caller key"
        if plan.binds.get("trading"):
            request = dict(params)
            collected = await blocking(self._delayed.delays.collect, OwnerAct.TOKEN_MINT, request)
            if collected is None and credential is None:
                raise DeskError(
                    409,
                    "prepared_act_changed",
                    "The waited token can no longer be collected; prepare it again.",
                )
            if collected is None:
                summary = (
                    f"mint a trading caller token for {caller} ({profile}, {params['ttl_s']} s)"
                )
                answer = await self._delayed.defer(OwnerAct.TOKEN_MINT, summary, request)
                if answer is not None:
                    answer["message"] += (
                        " Once it has, run the same command again to get the token."
                    )
                    return answer
        now = RealtimeClock().now()  # security time: a caller token expires by the wall clock
        try:
            token = mint(
                key,
                caller=caller,
                profile=profile,
                ttl=timedelta(seconds=int(params["ttl_s"])),
                now=now,
                connection=params.get("connection"),
            )
        except ConfigError as error:
            raise DeskError(400, "invalid_token_claim", f"Cannot mint: {error}.") from None
        claims = CallerVerifier(key, SteppedClock(start=now), cache_size=0).verify(token.reveal())
        assert claims is not None, "a freshly minted token verifies under its own key"
        engine = self._store.engine
        held = await blocking(claim_name, engine, caller, profile, now)
        if held != profile:  # another process claimed the name for another profile meanwhile
            raise _name_taken(held)
        await blocking(record_mint, engine, claims, params.get("connection"), now)
        return {
            "token": token.reveal(),
            "caller": caller,
            "profile": profile,
            "mint_id": claims.mint_id,
            "expires_at": claims.expires_at.isoformat(),
            "key_source": key.source.value,
        }


async def collect_later(act: DelayedAct) -> str | None:
    """A trading token whose delay has passed: collected when the owner asks again."""
    # The token itself is never stored: it is minted when the owner asks again (``mint``).
    return "the token can now be minted: run the same command again"


def _name_taken(profile: str) -> DeskError:
    return DeskError(
        409,
        "caller_name_taken",
        f"That caller name belongs to the profile {profile!r}: mint it for that profile, or "
        "choose another name.",
    )
