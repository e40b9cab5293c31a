"""Generic OAuth 2.1 pieces shared by the sandbox venue's and the gateway's authorization servers.

RFC 6749 error codes, single-valued parameters, bounded form reading, §5.2 error bodies and
response redirects; RFC 7636 PKCE (S256 only); RFC 8252 redirect-URI rule for public clients;
the RFC 8414 and RFC 9728 well-known paths and the 401 ``WWW-Authenticate`` challenge; and the
headers every sign-in page sends. Nothing here is venue- or gateway-specific (no client ids,
scopes, endpoint paths or page wording), and this package imports neither server.
"""

from ordergate.oauth._pages import PAGE_HEADERS
from ordergate.oauth._rfc6749 import (
    MAX_FORM_FIELDS,
    NO_STORE,
    ErrorCode,
    FormError,
    MultiParams,
    ParameterError,
    read_form,
    redirect_with,
    single_param,
    token_error,
)
from ordergate.oauth._rfc7636 import (
    S256,
    is_valid_challenge,
    is_valid_verifier,
    s256_challenge,
    verify_s256,
)
from ordergate.oauth._rfc8252 import LOOPBACK_HOSTS, MAX_REDIRECT_URI_LENGTH, redirect_uri_problem
from ordergate.oauth._rfc8414 import METADATA_PATH
from ordergate.oauth._rfc9728 import WELL_KNOWN_PREFIX, metadata_paths, www_authenticate

__all__ = [
    "LOOPBACK_HOSTS",
    "MAX_FORM_FIELDS",
    "MAX_REDIRECT_URI_LENGTH",
    "METADATA_PATH",
    "NO_STORE",
    "PAGE_HEADERS",
    "S256",
    "WELL_KNOWN_PREFIX",
    "ErrorCode",
    "FormError",
    "MultiParams",
    "ParameterError",
    "is_valid_challenge",
    "is_valid_verifier",
    "metadata_paths",
    "read_form",
    "redirect_uri_problem",
    "redirect_with",
    "s256_challenge",
    "single_param",
    "token_error",
    "verify_s256",
    "www_authenticate",
]
