"""``PersonConsent``: the consent hook of a hosted rail, where the person is the authority.

Under owner custody, connecting a client is the owner's act and needs the owner code
(``gateway.oauth._owner_code``). On a hosted rail (sealed custody with the keys to seal a
person's code) the connection is the person's own: they sign in at the upstream themselves
and, before their client gets any code, enrol a code of their own (``_signin``, ``_person``),
which alone authorizes the connection's owner acts. So the consent page asks nothing of the
operator, whatever profile of the operator's the person picks (the profiles and the policy
are the operator's ceiling): an approval goes on to the upstream sign-in and the enrolment,
and nothing is connected until both are done.
"""

from __future__ import annotations

from ordergate.oauth import (
    Authorization,
    ConsentCheck,
    ConsentPrompt,
    ConsentRefusal,
    MultiParams,
)

__all__ = ["PersonConsent"]

_PROMPT = ConsentPrompt(
    notice="This connection will be yours: next you sign in at Robinhood, then enrol a code of "
    "your own. Only your code approves its orders and its other owner acts; the rail's "
    "operator can pause or revoke it, never act in your account."
)


class PersonConsent(ConsentCheck):
    """Approving needs no operator code: the person's own enrolment follows (see module)."""

    def __repr__(self) -> str:
        return "PersonConsent()"

    async def prompt(self) -> ConsentPrompt:
        return _PROMPT

    async def check(
        self, *, form: MultiParams, profile: str | None, authorization: Authorization
    ) -> ConsentRefusal | None:
        return None
