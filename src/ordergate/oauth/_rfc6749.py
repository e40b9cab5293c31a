"""RFC 6749, The OAuth 2.0 Authorization Framework: error codes, parameter rules, responses.

The vocabulary every endpoint shares: the error codes (§4.1.2.1, §5.2, plus RFC 8707's
``invalid_target``) and a ``Refusal`` that carries one, the rule that a parameter may appear
at most once (§3.1), bounded form reading, the JSON error body of the token endpoint (§5.2)
and redirects that carry a response (§4.1.2). The endpoints themselves are
``_rfc6749_authorize`` and ``_rfc6749_token``; the scope rule is ``_rfc6749_scope``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol
from urllib.parse import urlencode, urlsplit, urlunsplit

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse

__all__ = [
    "MAX_FORM_FIELDS",
    "NO_STORE",
    "ErrorCode",
    "FormError",
    "MultiParams",
    "ParameterError",
    "Refusal",
    "read_form",
    "redirect_with",
    "single_param",
    "token_error",
]

# §5.1: responses that carry credentials (or refuse them) must not be cached.
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


class ErrorCode(StrEnum):
    INVALID_REQUEST = "invalid_request"
    INVALID_CLIENT = "invalid_client"
    INVALID_GRANT = "invalid_grant"
    INVALID_SCOPE = "invalid_scope"
    UNAUTHORIZED_CLIENT = "unauthorized_client"
    UNSUPPORTED_GRANT_TYPE = "unsupported_grant_type"
    UNSUPPORTED_RESPONSE_TYPE = "unsupported_response_type"
    ACCESS_DENIED = "access_denied"
    SERVER_ERROR = "server_error"
    # RFC 8707 §2: a resource indicator the server does not serve.
    INVALID_TARGET = "invalid_target"


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a request was refused: its error code and a sentence for the client (§5.2)."""

    error: ErrorCode
    description: str


class MultiParams(Protocol):
    """Starlette's ``QueryParams`` and ``FormData`` both fit (form values may be files)."""

    def getlist(self, key: str) -> Sequence[object]: ...


class ParameterError(ValueError):
    """A parameter appeared more than once (§3.1: "MUST NOT be included more than once"),
    or arrived as a file upload instead of text."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"{name} must be given once, as text")


# The longest legitimate request (authorize with every hidden field) has eleven fields.
MAX_FORM_FIELDS = 32


class FormError(ValueError):
    """The body is not a form this server reads: too many fields, a file, or unparseable."""

    def __init__(self) -> None:
        super().__init__(f"the body must be a form of at most {MAX_FORM_FIELDS} fields, no files")


async def read_form(request: Request) -> FormData:
    """The form-encoded body of ``request`` (an empty form for any other content type).

    Raises ``FormError`` for a body with files, too many fields or broken encoding.
    """
    # Starlette reports a bad form as HTTPException(400) inside an app and as
    # MultiPartException in a bare router; either way the endpoint answers in its own format.
    try:
        return await request.form(max_files=0, max_fields=MAX_FORM_FIELDS)
    except MultiPartException:
        raise FormError() from None
    except HTTPException as error:
        if error.status_code != 400:
            raise  # e.g. the body-size limit's 413, which its middleware answers
        raise FormError() from None


def single_param(params: MultiParams, name: str) -> str | None:
    """The one value of ``name``; ``None`` when absent or empty (§3.1: empty means omitted).

    Raises ``ParameterError`` when the parameter appears more than once or is not text.
    """
    values = params.getlist(name)
    if len(values) > 1:
        raise ParameterError(name)
    if not values:
        return None
    value = values[0]
    if not isinstance(value, str):
        raise ParameterError(name)
    return value or None


def token_error(code: ErrorCode, description: str) -> JSONResponse:
    """A §5.2 error response: status 400, JSON body, never cached."""
    return JSONResponse(
        {"error": code.value, "error_description": description}, status_code=400, headers=NO_STORE
    )


def redirect_with(redirect_uri: str, params: Mapping[str, str | None]) -> RedirectResponse:
    """302 to ``redirect_uri`` with ``params`` added to its query (§4.1.2: keep its own query)."""
    parts = urlsplit(redirect_uri)
    extra = urlencode({key: value for key, value in params.items() if value is not None})
    query = f"{parts.query}&{extra}" if parts.query else extra
    location = urlunsplit(parts._replace(query=query))
    return RedirectResponse(location, status_code=302, headers=NO_STORE)
