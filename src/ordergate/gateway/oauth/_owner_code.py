"""The owner code on the consent page: a consent hook (``ordergate.oauth.ConsentCheck``).

Connecting a client and choosing its profile is an owner act, on every host, loopback
included: an agent on the owner's machine can fetch the consent page and post it as well as
any browser can (the page's nonce stops cross-site posts, not the client that fetched it),
so approving needs what the agent lacks.

- With an owner enrolled, the page asks for the owner code in a field named ``owner_code``
  (a current authenticator code, or the passphrase); approving checks it with the
  ``OwnerAuthority`` (spent on the digest of what the page asks — client, profile,
  redirect, this request's PKCE challenge —, locked out after wrong codes, journalled as the
  ``consent`` act with the client and the profile — never the code), whatever the profile.
- With nobody enrolled, the page says how to enrol and only a profile that grants nothing
  beyond ``monitor``'s reads can be approved; any other is refused with 403 and nothing is
  connected.

Denying needs nothing. A refusal's sentence names what was wrong, never what was typed. A
code missing, mistyped or already used shows the page again for the person to retype it
(each attempt counts toward the lockout); a lockout ends the authorization request.
"""

from __future__ import annotations

import logging

from ordergate.core import command_hint
from ordergate.oauth import (
    Authorization,
    ConsentCheck,
    ConsentField,
    ConsentPrompt,
    ConsentRefusal,
    MultiParams,
    single_param,
)
from ordergate.owner import EnrolmentError, OwnerAct, OwnerAuthority, OwnerRefused, act_digest
from ordergate.profiles import DEFAULT_PROFILE, Profiles
from ordergate.store import blocking

__all__ = ["FIELD", "OwnerCode", "enrol_notice"]

_log = logging.getLogger(__name__)

FIELD = "owner_code"


def enrol_notice() -> str:
    """The consent page's notice while no owner is enrolled, naming the command as typed."""
    return (
        "No owner is enrolled on this gateway, so only the monitor profile (reads) can be "
        "granted. To let an application do more, the owner enrols once, as the gateway's "
        f"user: {command_hint('owner init')} — then scans its QR code with an authenticator "
        "app."
    )


_PROMPT = ConsentPrompt(
    fields=(
        ConsentField(
            name=FIELD,
            label="Owner code (from your authenticator app, or your passphrase)",
            autocomplete="one-time-code",
        ),
    ),
    notice="Approving is an owner act: it needs the owner code.",
)
_UNREADABLE = ConsentRefusal(
    status_code=503, problem="the owner enrolment cannot be read, so nothing can be approved"
)
_STATUS = {"owner_code_required": 401, "owner_locked": 423, "owner_busy": 503}
# A code missing, mistyped or already used: the page asks again (each attempt still counts
# toward the lockout, in the authority); a lockout or an unreadable enrolment ends the request.
_RETYPE = frozenset({"owner_code_required", "owner_code_wrong", "owner_code_replayed"})


class OwnerCode(ConsentCheck):
    """Approving a consent needs the owner code (or, with nobody enrolled, ``monitor``)."""

    def __init__(self, authority: OwnerAuthority, profiles: Profiles) -> None:
        self._authority = authority
        self._profiles = profiles

    def __repr__(self) -> str:
        return "OwnerCode(<owner authority>)"

    async def _enrolled(self) -> bool | None:
        try:
            return await blocking(self._authority.enrolment) is not None
        except EnrolmentError:
            return None

    async def prompt(self) -> ConsentPrompt:
        enrolled = await self._enrolled()
        if enrolled is False:
            return ConsentPrompt(notice=enrol_notice())
        return _PROMPT

    async def check(
        self, *, form: MultiParams, profile: str | None, authorization: Authorization
    ) -> ConsentRefusal | None:
        enrolled = await self._enrolled()
        if enrolled is None:
            _log.warning("a consent was refused: the owner enrolment cannot be read")
            return _UNREADABLE
        chosen = profile or DEFAULT_PROFILE
        if not enrolled:
            if self._reads_only(chosen):
                return None
            _log.warning("a consent for %s was refused: no owner is enrolled", chosen)
            return ConsentRefusal(
                status_code=403,
                problem="no owner is enrolled, so only the monitor profile can be granted; "
                f"enrol the owner with `{command_hint('owner init')}`",
            )
        code = single_param(form, FIELD)
        detail = {"client_id": authorization.client_id, "profile": chosen}
        # The code is spent on what the page shows and asks for: this client, this profile,
        # this redirect and this request's PKCE challenge (a retry of the same post, only).
        shown = {
            **detail,
            "redirect_uri": authorization.redirect_uri,
            "code_challenge": authorization.code_challenge,
            "scope": authorization.scope,
            "resource": authorization.resource,
        }
        digest = act_digest(OwnerAct.CONSENT, shown)
        try:
            await self._authority.check(code, OwnerAct.CONSENT, digest=digest, detail=detail)
        except OwnerRefused as refused:
            _log.warning("a consent was refused: %s", refused.reason)
            return ConsentRefusal(
                status_code=_STATUS.get(refused.reason, 403),
                problem=str(refused),
                retype=refused.reason in _RETYPE,
            )
        return None

    def _reads_only(self, name: str) -> bool:
        """Whether profile ``name`` grants nothing beyond the default profile's reads."""
        chosen, default = self._profiles.get(name), self._profiles.get(DEFAULT_PROFILE)
        if chosen is None or default is None:
            return False
        return chosen.permissions <= default.permissions
