"""``UpstreamSignIn``: the person signs in at the upstream, and the connection keeps that session.

After the person approves a client on the consent page, the gateway — a public client of the
upstream — sends their browser to the upstream's authorization endpoint with its own PKCE
challenge (S256) and a fresh ``state`` that names this pending request, and sets a random
*bind* value as a cookie in that browser (``HttpOnly``, ``SameSite=Lax``, on the callback path
only, ``Secure`` when the gateway is served over https). Only SHA-256 of the state and the bind
is kept, with the verifier sealed (``_held``).

The callback (``GET /oauth/callback``), in this order:

1. the ``state`` must name a sign-in in flight; it is spent whatever follows;
2. the browser must carry that sign-in's bind cookie — checked before anything is exchanged,
   so a sign-in finished in another browser (a victim lured to an attacker's consent, or the
   other way round) never yields a session: its code is never redeemed;
3. the answer must come from the upstream's issuer (RFC 9207 ``iss``, when sent); an upstream
   ``error`` goes back to the client as ``access_denied``;
4. the code is exchanged with the verifier (RFC 7636); the token set is sealed on a new
   connection and the client gets the gateway's own single-use code, with its ``state``;
5. on a hosted rail (``persons``), before that redirect, the person enrols a code of their
   own for the connection: the page shows its ``otpauth://`` URI and QR code once and posts
   a first code back to the callback path (the form sealed by the rail, the browser bound by
   a cookie); only once it is confirmed does the client get its code (``_person``). Before
   that, the person may register a passkey for the connection (``passkeys``): the page posts
   the WebAuthn ceremony's two steps to the callback path as JSON, each carrying what the
   rail sealed (the enrolment form, then the ceremony with its challenge) and bound to the
   same browser (``_person_passkeys``).

Without ``ORDERGATE_MASTER_SECRET`` nothing can be sealed, so nobody is connected: the consent
page says why instead (``unavailable``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from typing import Any

import anyio.to_thread
import httpx2
from mcp.client.auth import PKCEParameters
from mcp.client.auth.utils import issuers_match
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ordergate.client import TokenSet, ToolError, request_tokens
from ordergate.core import Clock
from ordergate.gateway._seal import Sealer, SealError
from ordergate.gateway.custody._authority import UpstreamAuthority
from ordergate.gateway.custody._held import HeldSignIn, SignIns
from ordergate.gateway.custody._person import PersonCodes, new_secret
from ordergate.gateway.custody._person_page import enrolment_page
from ordergate.gateway.custody._person_passkeys import PersonPasskeys
from ordergate.gateway.custody._vault import Vault
from ordergate.gateway.oauth._pages import error_page
from ordergate.gateway.oauth._paths import CALLBACK_PATH
from ordergate.gateway.oauth._store import GatewayStore
from ordergate.gateway.oauth._values import mint
from ordergate.gateway.passkeys import PasskeyError
from ordergate.oauth import Authorization, ErrorCode, ParameterError, redirect_with, single_param

__all__ = ["BIND_COOKIE", "CALLBACK_PATH", "NO_MASTER_SECRET", "UpstreamSignIn"]

_log = logging.getLogger(__name__)

BIND_COOKIE = "ordergate_bind"
ENROL_COOKIE = "ordergate_enrol"
_ENROL_AAD = b"person-enrolment"
_CEREMONY_AAD = b"person-passkey-ceremony"
_MAX_JSON = 32_768
NO_MASTER_SECRET = (
    "this gateway cannot hold a brokerage session: ORDERGATE_MASTER_SECRET is not set where "
    "it runs, so it connects nobody (its owner must set it and restart it)"
)
_OTHER_BROWSER = (
    "this sign-in was not started in this browser, so it was refused; start again from the "
    "application, in the browser you use to approve it"
)
_EXPIRED = "this sign-in has expired or was already used; start again from the application"
_UNREACHABLE = "the broker cannot be reached to sign in; try again shortly"


class UpstreamSignIn:
    def __init__(
        self,
        *,
        store: GatewayStore,
        authority: UpstreamAuthority,
        sealer: Sealer | None,
        vault: Vault | None,
        issuer: str,
        clock: Clock,
        bind_ttl_s: int = 600,
        persons: PersonCodes | None = None,
        passkeys: PersonPasskeys | None = None,
    ) -> None:
        self._persons = persons
        self._passkeys = passkeys if persons is not None else None
        self._store = store
        self._signins = SignIns(store.engine, clock=clock)
        self._authority = authority
        self._sealer = sealer
        self._vault = vault
        self._issuer = issuer
        self._clock = clock
        self._secure = issuer.startswith("https://")
        self._bind_ttl_s = bind_ttl_s

    @property
    def unavailable(self) -> str | None:
        """Why nobody can be connected, or ``None`` when sign-ins work."""
        return NO_MASTER_SECRET if self._sealer is None or self._vault is None else None

    @property
    def callback_path(self) -> str:
        return CALLBACK_PATH

    async def begin(self, pending_id: str, authorization: Authorization) -> Response:
        """Send the browser that approved ``pending_id`` to sign in at the upstream."""
        if self._sealer is None:
            return error_page(NO_MASTER_SECRET, status_code=503)
        try:
            authority = await self._authority.get()
        except ToolError as error:
            _log.warning("the upstream's authorization server is unavailable (%s)", error.code)
            return error_page(_UNREACHABLE, status_code=502)
        pkce = PKCEParameters.generate()
        state, bind = mint(), mint()
        sealed = self._sealer.seal(pkce.code_verifier.encode("ascii"), aad=_aad(pending_id))
        held = await anyio.to_thread.run_sync(
            lambda: self._signins.hold(
                pending_id,
                state=state,
                bind=bind,
                verifier_sealed=sealed,
                profile=authorization.profile,
            )
        )
        if not held:
            return error_page(_EXPIRED)
        response = Response(
            status_code=302,
            headers={
                "location": authority.authorization_url(challenge=pkce.code_challenge, state=state),
                "cache-control": "no-store",
                "referrer-policy": "no-referrer",
            },
        )
        response.set_cookie(
            BIND_COOKIE,
            bind,
            max_age=self._bind_ttl_s,
            path=CALLBACK_PATH,
            secure=self._secure,
            httponly=True,
            samesite="lax",
        )
        return response

    async def callback(self, request: Request) -> Response:
        if request.method == "POST":
            kind = request.headers.get("content-type", "").split(";")[0].strip()
            if kind == "application/json":
                return await self.passkey(request)
            return await self.confirm(request)
        response = await self._callback(request)
        response.delete_cookie(
            BIND_COOKIE, path=CALLBACK_PATH, secure=self._secure, httponly=True, samesite="lax"
        )
        return response

    async def _callback(self, request: Request) -> Response:
        try:
            state = single_param(request.query_params, "state")
            code = single_param(request.query_params, "code")
            error = single_param(request.query_params, "error")
            iss = single_param(request.query_params, "iss")
        except ParameterError as problem:
            return error_page(str(problem))
        if state is None:
            return error_page("the sign-in answer carried no state")
        held = await anyio.to_thread.run_sync(self._signins.take, state)
        if held is None:
            return error_page(_EXPIRED)
        if not _carries_bind(request, held):
            _log.warning("a sign-in callback came from a browser without its bind: refused")
            return error_page(_OTHER_BROWSER, status_code=403)
        if self._sealer is None or self._vault is None:
            return error_page(NO_MASTER_SECRET, status_code=503)
        authorization = held.authorization
        authority = await self._authority.get()
        if iss is not None and not issuers_match(iss, str(authority.server.metadata.issuer)):
            return error_page("the sign-in answer came from another authorization server")
        if error is not None or not code:
            return self._to_client(authorization, error=ErrorCode.ACCESS_DENIED)
        verifier = self._sealer.unseal(held.verifier_sealed, aad=_aad(held.pending_id))
        try:
            async with httpx2.AsyncClient(timeout=30.0) as http:
                granted = await request_tokens(
                    http,
                    authority.server.token_endpoint,
                    {
                        "grant_type": "authorization_code",
                        "code": code,
                        "redirect_uri": authority.redirect_uri,
                        "client_id": authority.client_id,
                        "code_verifier": verifier.decode("ascii"),
                        "resource": authority.server.resource,
                    },
                    now=self._clock.now(),
                )
        except ToolError as failure:
            _log.warning("the upstream refused the sign-in's code exchange (%s)", failure.code)
            return self._to_client(authorization, error=ErrorCode.ACCESS_DENIED)
        tokens = TokenSet(
            access_token=granted.access_token,
            refresh_token=granted.refresh_token,
            expires_at=granted.expires_at,
            token_endpoint=authority.server.token_endpoint,
            client_id=authority.client_id,
            resource=authority.server.resource,
            scope=granted.scope or authority.server.scope,
        )
        secret = new_secret() if self._persons is not None else None
        opened: list[str] = []
        opener = self._vault.opener(tokens, person_secret=secret, opened=opened)
        ours = await anyio.to_thread.run_sync(
            lambda: self._store.grants.issue_code(authorization, opener=opener)
        )
        back = redirect_with(
            authorization.redirect_uri,
            {"code": ours, "state": authorization.state, "iss": self._issuer},
        )
        if self._persons is None:
            return back
        return await self._enrolment_page(opened[0], back.headers["location"])

    # -- the person's own code, enrolled before the client gets its code --------------------

    async def _enrolment_page(self, connection_id: str, location: str) -> Response:
        assert self._sealer is not None and self._persons is not None
        persons = self._persons
        uri = await anyio.to_thread.run_sync(lambda: persons.enrolling_uri(connection_id))
        if uri is None:  # pragma: no cover - the row was written a moment ago
            return error_page(_EXPIRED)
        browser = mint()
        held = json.dumps(
            {"c": connection_id, "l": location, "b": hashlib.sha256(browser.encode()).hexdigest()}
        ).encode("utf-8")
        sealed = self._sealer.seal(held, aad=_ENROL_AAD)
        response = enrolment_page(
            uri,
            sealed=sealed,
            action=CALLBACK_PATH,
            connection_id=connection_id,
            passkeys=self._offers_passkeys,
        )
        response.set_cookie(
            ENROL_COOKIE,
            browser,
            max_age=self._bind_ttl_s,
            path=CALLBACK_PATH,
            secure=self._secure,
            httponly=True,
            samesite="strict",
        )
        return response

    async def confirm(self, request: Request) -> Response:
        """``POST`` of the enrolment page: the person's first code confirms their own code,
        then the client gets its code. A wrong code shows the page again."""
        if self._sealer is None or self._persons is None:
            return error_page(NO_MASTER_SECRET, status_code=503)
        form = await request.form()
        sealed, code = form.get("enrolment"), form.get("person_code")
        if not isinstance(code, str):
            return error_page("the enrolment form is incomplete")
        try:
            held = self._held(request, sealed, aad=_ENROL_AAD)
        except _Unheld as refusal:
            return error_page(refusal.message, status_code=refusal.status)
        assert isinstance(sealed, str)
        persons, connection_id = self._persons, str(held["c"])
        if await anyio.to_thread.run_sync(lambda: persons.confirm(connection_id, code.strip())):
            response = Response(
                status_code=302,
                headers={
                    "location": str(held["l"]),
                    "cache-control": "no-store",
                    "referrer-policy": "no-referrer",
                },
            )
            response.delete_cookie(
                ENROL_COOKIE, path=CALLBACK_PATH, secure=self._secure, httponly=True
            )
            return response
        uri = await anyio.to_thread.run_sync(lambda: persons.enrolling_uri(connection_id))
        if uri is None:
            return error_page(_EXPIRED)
        return enrolment_page(
            uri,
            sealed=sealed,
            action=CALLBACK_PATH,
            connection_id=connection_id,
            problem="that code is not the current one of this enrolment; type the code "
            "your authenticator shows now",
            passkeys=self._offers_passkeys,
        )

    # -- the person's passkey, registered on the same page before the code is confirmed -----

    @property
    def _offers_passkeys(self) -> bool:
        return self._passkeys is not None and self._passkeys.party is not None

    def _held(self, request: Request, sealed: object, *, aad: bytes) -> dict[str, Any]:
        """What the rail sealed for this enrolment, if this browser is the one it was for;
        ``_Unheld`` otherwise."""
        assert self._sealer is not None
        if not isinstance(sealed, str) or len(sealed) > 4096:
            raise _Unheld(400, "the enrolment form is incomplete")
        try:
            held = json.loads(self._sealer.unseal(sealed, aad=aad))
        except (SealError, ValueError):
            raise _Unheld(403, "the enrolment form was not one this rail issued") from None
        if not isinstance(held, dict):
            raise _Unheld(403, "the enrolment form was not one this rail issued")
        browser = request.cookies.get(ENROL_COOKIE, "")
        digest = hashlib.sha256(browser.encode("utf-8")).hexdigest()
        if not browser or not hmac.compare_digest(digest, str(held.get("b", ""))):
            raise _Unheld(403, _OTHER_BROWSER)
        return held

    async def passkey(self, request: Request) -> Response:
        """A JSON step of the passkey's registration: ``options`` (the enrolment form's sealed
        value) or ``register`` (the sealed ceremony and the authenticator's response)."""
        if self._sealer is None or self._passkeys is None or not self._offers_passkeys:
            return _json_error(404, "this rail registers no passkeys")
        passkeys, sealer = self._passkeys, self._sealer
        raw = await request.body()
        try:
            if len(raw) > _MAX_JSON:
                raise _Unheld(413, "the passkey step is too large")
            try:
                body = json.loads(raw)
            except (ValueError, RecursionError):
                raise _Unheld(400, "the passkey step must be JSON") from None
            if not isinstance(body, dict):
                raise _Unheld(400, "the passkey step must be a JSON object")
            step = body.get("step")
            if step == "options":
                held = self._held(request, body.get("enrolment"), aad=_ENROL_AAD)
                connection_id = str(held["c"])
                options, challenge = await anyio.to_thread.run_sync(
                    lambda: passkeys.registration_options(connection_id)
                )
                ceremony = {"c": connection_id, "ch": challenge, "b": held["b"]}
                sealed = sealer.seal(json.dumps(ceremony).encode("utf-8"), aad=_CEREMONY_AAD)
                return _json({"options": json.loads(options), "ceremony": sealed})
            if step == "register":
                held = self._held(request, body.get("ceremony"), aad=_CEREMONY_AAD)
                credential = body.get("credential")
                if not isinstance(credential, dict):
                    raise _Unheld(400, "credential must be the authenticator's response")
                answer = json.dumps(credential)
                await anyio.to_thread.run_sync(
                    lambda: passkeys.enrol(str(held["c"]), answer, str(held["ch"]))
                )
                return _json({"registered": True})
            raise _Unheld(400, "step must be options or register")
        except _Unheld as refusal:
            return _json_error(refusal.status, refusal.message)
        except PasskeyError as error:
            return _json_error(400, f"the passkey was not registered: {error}")

    def _to_client(self, authorization: Authorization, *, error: ErrorCode) -> Response:
        return redirect_with(
            authorization.redirect_uri,
            {
                "error": error.value,
                "error_description": "the sign-in at the broker was not completed",
                "state": authorization.state,
                "iss": self._issuer,
            },
        )


class _Unheld(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _json(body: dict[str, Any], status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers={"cache-control": "no-store"})


def _json_error(status: int, message: str) -> JSONResponse:
    return _json({"error": message}, status)


def _aad(pending_id: str) -> bytes:
    return b"pkce:" + pending_id.encode("ascii")


def _carries_bind(request: Request, held: HeldSignIn) -> bool:
    bind = request.cookies.get(BIND_COOKIE, "")
    digest = hashlib.sha256(bind.encode("utf-8")).hexdigest()
    return bool(bind) and hmac.compare_digest(digest, held.bind_sha256)
