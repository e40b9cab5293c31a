"""The authorization endpoint (RFC 6749 §4.1.1–4.1.2) with the owner's consent step.

``GET /oauth/authorize`` checks the request and shows the consent page; ``POST
/oauth/consent`` is the page's form and the only way to continue.

Order of checks on ``GET``, and how each failure is answered:

1. ``client_id`` must name a registered client and ``redirect_uri`` must be given and match
   its registration (``_redirects``: exactly, only the port free on loopback). Until both
   hold, the redirect URI is not trusted: every error is an HTML page with status 400 and
   nothing is redirected (§4.1.2.1; an attacker's URI must never receive anything).
2. Then errors go back to the client's redirect URI with ``error``, ``state`` and ``iss``:
   ``response_type`` must be ``code``; PKCE is S256 only (a missing challenge, a missing
   method, which §4.3 would read as ``plain``, and ``plain`` itself are refused); ``scope``,
   when sent, may only name the gateway's one scope; ``resource``, when sent, must be the MCP
   endpoint's URL (RFC 8707 ``invalid_target``). A parameter given twice is refused.
3. The request is held server-side (``gateway_pending``) and the page carries its id and a
   one-time nonce, stored as SHA-256 only.

On the ``POST``: the nonce must be the page's, unspent and unexpired; it is spent whatever
follows (so a form cannot be replayed, and a forged cross-site post, lacking it, does
nothing). ``deny`` sends ``access_denied`` to the client. ``approve`` needs the owner
passphrase when one is configured (a wrong one ends the attempt). Then, in owner mode, it opens
a connection on the owner's session and sends a single-use code with the client's ``state``;
when each connection holds its own upstream session, the browser is sent to sign in at the
upstream first (``SignIn``, ``ordergate.gateway.custody``), and the code follows its callback.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Protocol

import anyio.to_thread
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response

from ordergate.gateway.oauth._pages import consent_page, error_page
from ordergate.gateway.oauth._passphrase import OwnerPassphrase
from ordergate.gateway.oauth._records import SCOPE, Authorization
from ordergate.gateway.oauth._redirects import redirect_matches
from ordergate.gateway.oauth._store import GatewayStore
from ordergate.oauth import (
    S256,
    ErrorCode,
    FormError,
    MultiParams,
    ParameterError,
    is_valid_challenge,
    read_form,
    redirect_with,
    single_param,
)
from ordergate.profiles import DEFAULT_PROFILE, Profiles

__all__ = ["AuthorizationEndpoint", "SignIn"]

_log = logging.getLogger(__name__)

START_AGAIN = "this consent page has expired or was already used"


class SignIn(Protocol):
    """The upstream sign-in that follows an approval when each connection holds its own
    upstream session (``ordergate.gateway.custody``)."""

    @property
    def unavailable(self) -> str | None:
        """Why nobody can be connected now (shown instead of the consent page), or ``None``."""
        ...

    async def begin(self, pending_id: str, authorization: Authorization) -> Response:
        """The answer to an approval: the browser sent on to sign in at the upstream."""
        ...

    async def callback(self, request: Request) -> Response:
        """The upstream's answer to that sign-in."""
        ...


class _ShowError(Exception):
    """The answer cannot safely be redirected: show ``problem`` on a page instead."""

    def __init__(self, problem: str, status_code: int = 400) -> None:
        self.problem = problem
        self.status_code = status_code
        super().__init__(problem)


class AuthorizationEndpoint:
    """``show`` (``GET``) the consent page; ``decide`` (``POST``) records the owner's decision."""

    def __init__(
        self,
        *,
        store: GatewayStore,
        issuer: str,
        resource: str,
        passphrase: OwnerPassphrase | None,
        sign_in: SignIn | None = None,
        profiles: Profiles | None = None,
    ) -> None:
        self._store = store
        self._profiles = profiles
        self._sign_in = sign_in
        self._issuer = issuer
        self._resource = resource
        self._passphrase = passphrase

    async def show(self, request: Request) -> Response:
        try:
            return await self._show(request.query_params)
        except (ParameterError, _ShowError) as error:
            return _error_page(error)

    async def decide(self, request: Request) -> Response:
        try:
            return await self._decide(await read_form(request))
        except (FormError, ParameterError, _ShowError) as error:
            return _error_page(error)

    # -- GET: the consent page -----------------------------------------------------------

    async def _show(self, params: QueryParams) -> Response:
        client_id = single_param(params, "client_id")
        redirect_uri = single_param(params, "redirect_uri")
        if client_id is None:
            raise _ShowError("client_id is missing")
        if self._sign_in is not None and self._sign_in.unavailable is not None:
            raise _ShowError(self._sign_in.unavailable, status_code=503)
        client = await anyio.to_thread.run_sync(self._store.client, client_id)
        if client is None:
            raise _ShowError("client_id is not a client registered here")
        if redirect_uri is None:
            raise _ShowError("redirect_uri is missing")
        if not redirect_matches(redirect_uri, client.redirect_uris):
            raise _ShowError("redirect_uri is not one this client registered")
        # The redirect URI is trusted from here on.
        try:
            state = single_param(params, "state")
        except ParameterError as error:
            return self._redirect_error(redirect_uri, None, ErrorCode.INVALID_REQUEST, str(error))
        try:
            authorization = self._validate(params, client_id, redirect_uri, state)
        except _Invalid as invalid:
            return self._redirect_error(redirect_uri, state, invalid.code, invalid.description)
        pending_id, nonce = await anyio.to_thread.run_sync(self._store.open_pending, authorization)
        return consent_page(
            client_name=client.client_name,
            redirect_uri=redirect_uri,
            pending_id=pending_id,
            nonce=nonce,
            passphrase_required=self._passphrase is not None,
            signs_in=self._sign_in is not None,
            profiles=_choices(self._profiles),
        )

    def _validate(
        self, params: MultiParams, client_id: str, redirect_uri: str, state: str | None
    ) -> Authorization:
        try:
            response_type = single_param(params, "response_type")
            challenge = single_param(params, "code_challenge")
            method = single_param(params, "code_challenge_method")
            scope = single_param(params, "scope")
            resource = single_param(params, "resource")
        except ParameterError as error:
            raise _Invalid(ErrorCode.INVALID_REQUEST, str(error)) from None
        if response_type != "code":
            raise _Invalid(ErrorCode.UNSUPPORTED_RESPONSE_TYPE, "response_type must be code")
        if challenge is None:
            raise _Invalid(ErrorCode.INVALID_REQUEST, "code_challenge is required (PKCE, S256)")
        if method != S256:
            raise _Invalid(ErrorCode.INVALID_REQUEST, "code_challenge_method must be S256")
        if not is_valid_challenge(challenge):
            raise _Invalid(ErrorCode.INVALID_REQUEST, "code_challenge is not an S256 challenge")
        if scope is not None and not set(scope.split()) <= {SCOPE}:
            raise _Invalid(ErrorCode.INVALID_SCOPE, f"the only scope is {SCOPE}")
        if resource is not None and resource != self._resource:
            raise _Invalid(ErrorCode.INVALID_TARGET, "resource is not served by this gateway")
        return Authorization(
            client_id=client_id,
            redirect_uri=redirect_uri,
            code_challenge=challenge,
            state=state,
            resource=resource,
        )

    # -- POST: the decision --------------------------------------------------------------

    async def _decide(self, form: MultiParams) -> Response:
        pending_id = single_param(form, "pending")
        nonce = single_param(form, "nonce")
        decision = single_param(form, "decision")
        submitted = single_param(form, "passphrase")
        chosen = single_param(form, "profile") or DEFAULT_PROFILE
        if decision not in ("approve", "deny"):
            raise _ShowError("decision must be approve or deny")
        if pending_id is None or nonce is None:
            raise _ShowError("the consent form is incomplete")
        authorization = await anyio.to_thread.run_sync(self._store.take_pending, pending_id, nonce)
        if authorization is None:
            raise _ShowError(START_AGAIN)
        if decision == "deny":
            return self._redirect_error(
                authorization.redirect_uri,
                authorization.state,
                ErrorCode.ACCESS_DENIED,
                "the owner denied the request",
            )
        if self._passphrase is not None and not self._passphrase.matches(submitted):
            _log.warning("a consent was refused: the owner passphrase was not right")
            raise _ShowError("the owner passphrase is not right", status_code=403)
        if self._profiles is not None and chosen not in self._profiles:
            raise _ShowError("profile is not one this gateway defines")
        authorization = replace(authorization, profile=chosen)
        if self._sign_in is not None:
            return await self._sign_in.begin(pending_id, authorization)
        code = await anyio.to_thread.run_sync(self._store.grants.issue_code, authorization)
        return redirect_with(
            authorization.redirect_uri,
            {"code": code, "state": authorization.state, "iss": self._issuer},
        )

    def _redirect_error(
        self, redirect_uri: str, state: str | None, code: ErrorCode, description: str
    ) -> Response:
        return redirect_with(
            redirect_uri,
            {
                "error": code.value,
                "error_description": description,
                "state": state,
                "iss": self._issuer,
            },
        )


def _choices(profiles: Profiles | None) -> tuple[tuple[str, str], ...]:
    """The profiles the page offers, the default first: ``(name, description)``."""
    if profiles is None:
        return ()
    names = sorted(profiles, key=lambda name: (name != DEFAULT_PROFILE, name))
    return tuple((name, profiles[name].description) for name in names)


def _error_page(error: Exception) -> Response:
    if isinstance(error, _ShowError):
        return error_page(error.problem, status_code=error.status_code)
    return error_page(str(error))


class _Invalid(Exception):
    """An error the client hears about at its (trusted) redirect URI."""

    def __init__(self, code: ErrorCode, description: str) -> None:
        self.code = code
        self.description = description
        super().__init__(description)
