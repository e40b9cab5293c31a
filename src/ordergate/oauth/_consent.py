"""The consent hook: what an approval needs besides the person's click; and the profile choice.

An authorization server takes at most one ``ConsentCheck`` (the gateway's owner passphrase is
one, ``ordergate.gateway.oauth``; an owner code is another). Its contract:

``prompt()`` is awaited each time the consent page is shown, once the request has been
validated and the page's nonce issued. What it returns goes into the page's form, before the
buttons: ``fields``, inputs the person fills in (say a password input named ``owner_code``),
and an optional ``notice`` paragraph (say how to enrol). It refuses nothing and should not
raise; it may read state (whether an owner is enrolled), so it is async.

``check(form=…, profile=…, authorization=…)`` is awaited when the person approves, and only
then (denying needs no credential, so Deny never reaches it), after, in this order:

1. the form was read and its fields are each given at most once;
2. the page's nonce has been spent: whatever ``check`` answers, this page cannot be posted
   again, so a wrong answer costs the attempt and every guess needs a fresh page;
3. the decision is ``approve``;
4. the profile has been read and is one the server offers (``profile``, also on
   ``authorization.profile``; ``None`` where the server offers no choice).

It answers ``None`` to let the approval go on (to the code, or to the upstream sign-in first),
``SignedIn`` to let it go on as the user the fields named (the authorization then carries their
``subject``, and so does the code issued for it), or a ``ConsentRefusal``: the HTTP status
and the one sentence the error page shows. After a refusal nothing is approved: no code, no
connection, no redirect to the client. The hook
reads its own fields from ``form`` with ``single_param`` (a field given twice raises
``ParameterError``, which the server answers with a 400 page, approving nothing), does its
own logging (the server logs nothing of a refusal), and never logs, returns or shows what was
typed: a problem sentence says what was wrong, never the value. It runs on the event loop:
blocking work (a database, a slow hash) belongs in a worker thread. An exception it raises
is a server error, and approves nothing.

``ProfileChoice`` is the other addition the consent page can carry: the profiles the person
chooses among (the chosen one becomes the connection's), with the default first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from ordergate.oauth._rfc6749 import MultiParams
from ordergate.oauth._storage import Authorization

__all__ = [
    "NO_PROMPT",
    "ConsentCheck",
    "ConsentField",
    "ConsentPrompt",
    "ConsentRefusal",
    "ProfileChoice",
    "SignedIn",
]


@dataclass(frozen=True, slots=True)
class ConsentField:
    """An input on the consent form. Its element id is its ``name``. ``required`` makes the
    browser insist on it for Approve only (Deny is sent without checking the form)."""

    name: str
    label: str
    kind: Literal["password", "text"] = "password"
    autocomplete: str = "current-password"
    required: bool = True


@dataclass(frozen=True, slots=True)
class ConsentPrompt:
    """What the consent form shows for the hook: its inputs, and a paragraph above them."""

    fields: tuple[ConsentField, ...] = ()
    notice: str | None = None


NO_PROMPT = ConsentPrompt()


@dataclass(frozen=True, slots=True)
class ConsentRefusal:
    """An approval refused: the error page's HTTP status and its one sentence.

    Raises ``ValueError`` for a status that is not an HTTP error (400–599).
    """

    status_code: int
    problem: str
    retype: bool = False
    """The person may type the prompt's fields again: the consent page is shown once more
    (with ``problem`` and ``status_code``) on a fresh ticket, instead of the error page that
    ends the authorization request."""

    def __post_init__(self) -> None:
        if not 400 <= self.status_code <= 599:
            raise ValueError("status_code must be an HTTP error status (400-599)")


@dataclass(frozen=True, slots=True)
class SignedIn:
    """An approval let go on as ``subject``: the user the consent form's fields signed in."""

    subject: str


class ConsentCheck(Protocol):
    """The consent hook (see the module docstring for the contract)."""

    async def prompt(self) -> ConsentPrompt:
        """What the consent form must show for this check."""
        ...

    async def check(
        self, *, form: MultiParams, profile: str | None, authorization: Authorization
    ) -> ConsentRefusal | SignedIn | None:
        """``None`` (or ``SignedIn``: as that user) to let the approval go on, or why it is
        refused."""
        ...


@dataclass(frozen=True, slots=True)
class ProfileChoice:
    """The profiles a consent page offers, ``(name, description)`` each, in the order shown;
    ``default`` is chosen when the form names none and is shown first and selected.
    ``refusal`` is the error page's sentence for a profile not offered.

    Raises ``ValueError`` when ``default`` is not among ``options``.
    """

    options: tuple[tuple[str, str], ...]
    default: str
    label: str = "What this application may do"
    refusal: str = "profile is not one this server offers"

    def __post_init__(self) -> None:
        names = [name for name, _ in self.options]
        if self.default not in names:
            raise ValueError("the default profile must be among the options")
        ordered = sorted(self.options, key=lambda option: option[0] != self.default)
        object.__setattr__(self, "options", tuple(ordered))

    def __contains__(self, name: object) -> bool:
        return any(name == option for option, _ in self.options)
