"""The authorization endpoint (RFC 6749 §3.1, §4.1.1–4.1.2) and its consent step.

``GET /oauth`` validates the request and shows a sign-in/consent page whose form carries the
request back in hidden fields with a single-use nonce. ``POST /oauth`` validates the fields
again, spends the nonce (which must have been issued for exactly this request, so neither a
forged form nor an edited hidden field gets through) and redirects with a code or with
``access_denied``.

Errors about *where the response would go* (client id, redirect URI) are shown on a page and
never redirected (§4.1.2.1); every other error is redirected to the client with ``state``.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from ordergate.oauth import (
    S256,
    ErrorCode,
    FormError,
    MultiParams,
    ParameterError,
    is_valid_challenge,
    read_form,
    redirect_uri_problem,
    redirect_with,
    single_param,
)
from ordergate.sandbox.oauth._grants import AuthorizationRequest, GrantStore
from ordergate.sandbox.oauth._pages import consent_page, error_page
from ordergate.sandbox.oauth._rfc7591 import SUPPORTED_SCOPE

__all__ = ["AuthorizationEndpoint"]


class _ShowError(Exception):
    """The response cannot safely be redirected: show ``problem`` on a page instead."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(problem)


class _RedirectError(Exception):
    """An error the client hears about at its (already validated) redirect URI."""

    def __init__(
        self, code: ErrorCode, description: str, *, redirect_uri: str, state: str | None
    ) -> None:
        self.code = code
        self.description = description
        self.redirect_uri = redirect_uri
        self.state = state
        super().__init__(description)

    def response(self) -> Response:
        return redirect_with(
            self.redirect_uri,
            {"error": self.code.value, "error_description": self.description, "state": self.state},
        )


class AuthorizationEndpoint:
    """``GET`` shows the consent page; ``POST`` records the decision."""

    def __init__(self, *, store: GrantStore, client_id: str, resource: str) -> None:
        self._store = store
        self._client_id = client_id
        self._resource = resource

    async def handle(self, request: Request) -> Response:
        try:
            if request.method == "POST":
                return self._decide(await read_form(request))
            return self._show(request.query_params)
        except FormError as error:
            return error_page(str(error))
        except _ShowError as error:
            return error_page(error.problem)
        except _RedirectError as error:
            return error.response()

    def _show(self, params: MultiParams) -> Response:
        authorization = self._validate(params)
        nonce = self._store.open_consent(authorization)
        return consent_page(authorization, nonce=nonce.reveal())

    def _decide(self, form: MultiParams) -> Response:
        authorization = self._validate(form)
        try:
            decision = single_param(form, "decision")
            nonce = single_param(form, "nonce")
        except ParameterError as error:
            raise _ShowError(str(error)) from None
        if decision not in ("approve", "deny"):
            raise _ShowError("decision must be approve or deny")
        if nonce is None:
            raise _ShowError("the sign-in form is incomplete; start again")
        if self._store.take_consent(nonce) != authorization:
            raise _ShowError("this sign-in page has expired or was already used; start again")
        if decision == "deny":
            raise _RedirectError(
                ErrorCode.ACCESS_DENIED,
                "the account holder denied the request",
                redirect_uri=authorization.redirect_uri,
                state=authorization.state,
            )
        code = self._store.issue_code(authorization)
        return redirect_with(
            authorization.redirect_uri, {"code": code.reveal(), "state": authorization.state}
        )

    def _validate(self, params: MultiParams) -> AuthorizationRequest:
        """The request in ``params``, or the error to answer it with (raised)."""
        try:
            client_id = single_param(params, "client_id")
            redirect_uri = single_param(params, "redirect_uri")
        except ParameterError as error:
            raise _ShowError(str(error)) from None
        if client_id is None:
            raise _ShowError("client_id is missing")
        if client_id != self._client_id:
            raise _ShowError("client_id is not a client of this server")
        if redirect_uri is None:
            raise _ShowError("redirect_uri is missing")
        problem = redirect_uri_problem(redirect_uri)
        if problem is not None:
            raise _ShowError(problem)

        try:
            state = single_param(params, "state")
        except ParameterError as error:
            raise _RedirectError(
                ErrorCode.INVALID_REQUEST, str(error), redirect_uri=redirect_uri, state=None
            ) from None

        def refuse(code: ErrorCode, description: str) -> _RedirectError:
            return _RedirectError(code, description, redirect_uri=redirect_uri, state=state)

        try:
            response_type = single_param(params, "response_type")
            challenge = single_param(params, "code_challenge")
            method = single_param(params, "code_challenge_method")
            scope = single_param(params, "scope")
            resource = single_param(params, "resource")
        except ParameterError as error:
            raise refuse(ErrorCode.INVALID_REQUEST, str(error)) from None

        if response_type is None:
            raise refuse(ErrorCode.INVALID_REQUEST, "response_type is missing")
        if response_type != "code":
            raise refuse(ErrorCode.UNSUPPORTED_RESPONSE_TYPE, "only response_type=code is served")
        if challenge is None:
            raise refuse(ErrorCode.INVALID_REQUEST, "code_challenge is required (PKCE, S256)")
        if method != S256:
            raise refuse(ErrorCode.INVALID_REQUEST, "code_challenge_method must be S256")
        if not is_valid_challenge(challenge):
            raise refuse(ErrorCode.INVALID_REQUEST, "code_challenge is not a S256 challenge")
        if scope is not None and set(scope.split(" ")) != {SUPPORTED_SCOPE}:
            raise refuse(ErrorCode.INVALID_SCOPE, f"the only scope is {SUPPORTED_SCOPE}")
        if resource is not None and resource != self._resource:
            raise refuse(ErrorCode.INVALID_TARGET, "resource is not served by this server")
        return AuthorizationRequest(
            client_id=client_id,
            redirect_uri=redirect_uri,
            code_challenge=challenge,
            scope=SUPPORTED_SCOPE,
            resource=resource,
            state=state,
        )
