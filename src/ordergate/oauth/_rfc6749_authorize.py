"""RFC 6749, The OAuth 2.0 Authorization Framework, §4.1.1–4.1.2: the authorization endpoint.

``GET`` checks the request and shows the consent page (the server's ``ConsentPages``); the
page's form posts back, and that ``POST``, the person's consent, is the only way on. Checks
on ``GET``, in order, and how each failure is answered:

1. ``client_id`` and ``redirect_uri`` are given once; the upstream sign-in, if any, is
   available (else its reason, 503); ``client_id`` names a client; ``redirect_uri`` is given
   and allowed for it (``redirect_problem``: exactly a registered one, only the port free on
   loopback; for a client that registered none, the RFC 8252 rule). Until all of that holds
   the redirect URI is not trusted: every error is an HTML page, status 400, and nothing is
   redirected (§4.1.2.1: an attacker's URI must never receive anything).
2. Then errors go back to the redirect URI with ``error``, ``error_description``, ``state``
   (and ``iss``, RFC 9207, where the server sends it): ``state`` given twice is
   ``invalid_request`` answered without one; ``response_type`` missing is ``invalid_request``
   and anything but ``code`` ``unsupported_response_type``; PKCE is S256 only (a missing
   challenge, a missing method, which RFC 7636 §4.3 would read as ``plain``, ``plain``
   itself and a challenge that is not 43 base64url characters are ``invalid_request``);
   ``scope`` by the one rule (``_rfc6749_scope``: ``invalid_scope``; narrowed to the offer
   where the server narrows, ``narrow_scope``); ``resource``, when sent,
   must be the protected resource (RFC 8707 ``invalid_target``); any parameter given twice is
   ``invalid_request``.
3. The request is held by the store (``open_consent``); the page carries its pending id and a
   one-time nonce, plus whatever the consent hook (``_consent``) asks for.

On the ``POST``, in order: the form's fields are each given once (else a page, nothing
spent); the decision is ``approve`` or ``deny`` and the pending id and nonce are there (else
a page, nothing spent); the nonce is the page's, unspent and unexpired, and is spent now
whatever follows, so a form cannot be replayed and a forged cross-site post, lacking it, does
nothing. ``deny`` sends ``access_denied`` to the client. ``approve`` reads the profile (one
the server offers, else a page), asks the consent hook (which may name the user it signed in:
the authorization carries them on), then either sends the browser to sign
in upstream first (``_signin``) or issues a single-use code and redirects with the client's
``state``. A hook's refusal that lets the person retype (``ConsentRefusal.retype``: a mistyped
owner code) shows the same request's page again on a fresh ticket, instead of ending it.

Where the form posts back to the authorization path itself (the venue, as the live server),
that ``POST`` is an authorization request in its own right (§3.1 allows ``POST``): the form
carries the request again in hidden fields, it is checked exactly as on ``GET`` before
anything else, and it must be the very request the nonce was issued for, so an edited field
ends the page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import replace

from starlette.requests import Request
from starlette.responses import Response

from ordergate.oauth._consent import (
    NO_PROMPT,
    ConsentCheck,
    ConsentRefusal,
    ProfileChoice,
    SignedIn,
)
from ordergate.oauth._pages import ConsentPages, ConsentView
from ordergate.oauth._rfc6749 import (
    ErrorCode,
    FormError,
    MultiParams,
    ParameterError,
    Refusal,
    read_form,
    redirect_with,
    single_param,
)
from ordergate.oauth._rfc6749_scope import ScopeError, granted_scope
from ordergate.oauth._rfc7636 import S256, is_valid_challenge
from ordergate.oauth._rfc8252 import redirect_problem
from ordergate.oauth._signin import SignIn
from ordergate.oauth._storage import Authorization, AuthorizationStore, Client

__all__ = ["START_AGAIN", "AuthorizationEndpoint"]

START_AGAIN = "this consent page has expired or was already used"


class _Shown(Exception):
    """The answer cannot safely be redirected: show ``problem`` on a page instead."""

    def __init__(self, problem: str, status_code: int = 400) -> None:
        self.problem = problem
        self.status_code = status_code
        super().__init__(problem)


class _Redirected(Exception):
    """An error the client hears about at its (trusted) redirect URI."""

    def __init__(self, redirect_uri: str, state: str | None, refusal: Refusal) -> None:
        self.redirect_uri = redirect_uri
        self.state = state
        self.refusal = refusal
        super().__init__(refusal.description)


def _invalid(description: str) -> Refusal:
    return Refusal(ErrorCode.INVALID_REQUEST, description)


class AuthorizationEndpoint:
    """``show`` (``GET``) the consent page; ``decide`` (``POST``) the person's decision;
    ``handle`` both on one path."""

    def __init__(
        self,
        *,
        store: AuthorizationStore,
        pages: ConsentPages,
        issuer: str,
        resource: str,
        scopes: Sequence[str],
        action: str,
        echo_request: bool,
        iss_parameter: bool,
        profiles: ProfileChoice | None = None,
        consent_check: ConsentCheck | None = None,
        sign_in: SignIn | None = None,
        narrow_scope: bool = False,
    ) -> None:
        self._store = store
        self._narrow = narrow_scope
        self._pages = pages
        self._resource = resource
        self._scopes = tuple(scopes)
        self._action = action
        self._echo = echo_request
        self._iss = {"iss": issuer} if iss_parameter else {}
        self._profiles = profiles
        self._check = consent_check
        self._sign_in = sign_in

    async def handle(self, request: Request) -> Response:
        return await (self.decide(request) if request.method == "POST" else self.show(request))

    async def show(self, request: Request) -> Response:
        return await self._answer(self._show(request.query_params))

    async def decide(self, request: Request) -> Response:
        return await self._answer(self._decide(request))

    async def _answer(self, work: Awaitable[Response]) -> Response:
        try:
            return await work
        except (FormError, ParameterError) as error:
            return self._pages.error(str(error))
        except _Shown as shown:
            return self._pages.error(shown.problem, status_code=shown.status_code)
        except _Redirected as redirected:
            return self._redirect(redirected.redirect_uri, redirected.state, redirected.refusal)

    # -- GET: the consent page -----------------------------------------------------------

    async def _show(self, params: MultiParams) -> Response:
        client, authorization = await self._validated(params)
        return await self._consent_page(client, authorization)

    async def _consent_page(
        self, client: Client, authorization: Authorization, *, again: ConsentRefusal | None = None
    ) -> Response:
        """The consent page for ``authorization``, on a fresh single-use ticket; ``again``:
        shown once more after that refusal (its sentence above the fields, its status)."""
        ticket = await self._store.open_consent(authorization)
        prompt = await self._check.prompt() if self._check is not None else NO_PROMPT
        if again is not None:
            prompt = replace(prompt, notice=f"{again.problem[:1].upper()}{again.problem[1:]}.")
        view = ConsentView(
            client=client,
            authorization=authorization,
            action=self._action,
            hidden=(
                *self._echoed(authorization),
                ("pending", ticket.pending_id),
                ("nonce", ticket.nonce),
            ),
            profiles=self._profiles,
            prompt=prompt,
            signs_in=self._sign_in is not None,
        )
        page = self._pages.consent(view)
        if again is not None:
            page.status_code = again.status_code
        return page

    def _echoed(self, authorization: Authorization) -> tuple[tuple[str, str], ...]:
        """The request, as hidden fields, where the form posts to the authorization path."""
        if not self._echo:
            return ()
        fields = {
            "response_type": "code",
            "client_id": authorization.client_id,
            "redirect_uri": authorization.redirect_uri,
            "code_challenge": authorization.code_challenge,
            "code_challenge_method": S256,
            "scope": authorization.scope,
            "resource": authorization.resource,
            "state": authorization.state,
        }
        return tuple((name, value) for name, value in fields.items() if value is not None)

    async def _validated(self, params: MultiParams) -> tuple[Client, Authorization]:
        client_id = single_param(params, "client_id")
        redirect_uri = single_param(params, "redirect_uri")
        if client_id is None:
            raise _Shown("client_id is missing")
        if self._sign_in is not None and (reason := self._sign_in.unavailable) is not None:
            raise _Shown(reason, status_code=503)
        client = await self._store.client(client_id)
        if client is None:
            raise _Shown("client_id is not a client registered here")
        if redirect_uri is None:
            raise _Shown("redirect_uri is missing")
        problem = redirect_problem(redirect_uri, client.redirect_uris)
        if problem is not None:
            raise _Shown(problem)
        # The redirect URI is trusted from here on.
        try:
            state = single_param(params, "state")
        except ParameterError as error:
            raise _Redirected(redirect_uri, None, _invalid(str(error))) from None
        refusal_or_request = self._request(params, client_id, redirect_uri, state)
        if isinstance(refusal_or_request, Refusal):
            raise _Redirected(redirect_uri, state, refusal_or_request)
        return client, refusal_or_request

    def _request(
        self, params: MultiParams, client_id: str, redirect_uri: str, state: str | None
    ) -> Authorization | Refusal:
        try:
            response_type = single_param(params, "response_type")
            challenge = single_param(params, "code_challenge")
            method = single_param(params, "code_challenge_method")
            scope = single_param(params, "scope")
            resource = single_param(params, "resource")
        except ParameterError as error:
            return _invalid(str(error))
        if response_type is None:
            return _invalid("response_type is missing")
        if response_type != "code":
            return Refusal(ErrorCode.UNSUPPORTED_RESPONSE_TYPE, "response_type must be code")
        if challenge is None:
            return _invalid("code_challenge is required (PKCE, S256)")
        if method != S256:
            return _invalid("code_challenge_method must be S256")
        if not is_valid_challenge(challenge):
            return _invalid("code_challenge is not an S256 challenge")
        try:
            granted = granted_scope(scope, self._scopes, narrow=self._narrow)
        except ScopeError as error:
            return Refusal(ErrorCode.INVALID_SCOPE, str(error))
        if resource is not None and resource != self._resource:
            return Refusal(ErrorCode.INVALID_TARGET, "resource is not served by this server")
        return Authorization(
            client_id=client_id,
            redirect_uri=redirect_uri,
            code_challenge=challenge,
            scope=granted,
            state=state,
            resource=resource,
        )

    # -- POST: the decision --------------------------------------------------------------

    async def _decide(self, request: Request) -> Response:
        form = await read_form(request)
        submitted = (await self._validated(form))[1] if self._echo else None
        pending_id = single_param(form, "pending")
        nonce = single_param(form, "nonce")
        decision = single_param(form, "decision")
        named_profile = single_param(form, "profile")
        if decision not in ("approve", "deny"):
            raise _Shown("decision must be approve or deny")
        if pending_id is None or nonce is None:
            raise _Shown("the consent form is incomplete")
        authorization = await self._store.take_consent(pending_id, nonce)
        if authorization is None or (submitted is not None and submitted != authorization):
            raise _Shown(START_AGAIN)
        if decision == "deny":
            denied = Refusal(ErrorCode.ACCESS_DENIED, "the resource owner denied the request")
            return self._redirect(authorization.redirect_uri, authorization.state, denied)
        profile = self._chosen(named_profile)
        requested, authorization = authorization, replace(authorization, profile=profile)
        if self._check is not None:
            refusal = await self._check.check(
                form=form, profile=profile, authorization=authorization
            )
            if isinstance(refusal, SignedIn):
                authorization, refusal = replace(authorization, subject=refusal.subject), None
            if refusal is not None and refusal.retype:
                # A mistyped field: the same request's page again, on a fresh ticket (the
                # hook counts every attempt; the request is not lost with the one typo).
                client = await self._store.client(requested.client_id)
                if client is None:
                    raise _Shown(START_AGAIN)
                return await self._consent_page(client, requested, again=refusal)
            if refusal is not None:
                raise _Shown(refusal.problem, status_code=refusal.status_code)
        if self._sign_in is not None:
            return await self._sign_in.begin(pending_id, authorization)
        code = await self._store.issue_code(authorization)
        return redirect_with(
            authorization.redirect_uri, {"code": code, "state": authorization.state, **self._iss}
        )

    def _chosen(self, named: str | None) -> str | None:
        if self._profiles is None:
            return None
        chosen = named or self._profiles.default
        if chosen not in self._profiles:
            raise _Shown(self._profiles.refusal)
        return chosen

    def _redirect(self, redirect_uri: str, state: str | None, refusal: Refusal) -> Response:
        return redirect_with(
            redirect_uri,
            {
                "error": refusal.error.value,
                "error_description": refusal.description,
                "state": state,
                **self._iss,
            },
        )
