"""The one OAuth 2.1 authorization server both the sandbox venue and the gateway run.

``AuthorizationServer`` (``_server``) puts one set of endpoints over a storage protocol
(``AuthorizationStore``, ``ClientRegistry``, ``TokenRevoker``): RFC 6749's authorization
endpoint with a consent step and its token endpoint, RFC 7591 registration (one shared
client, or one client each) and clients named by their metadata document's URL (``_cimd``),
RFC 7009 revocation, RFC 8414 and RFC 9728 metadata and the 401 challenge; PKCE S256 only
(RFC 7636); redirect URIs by RFC 8252. What one server does differently from the other is
configuration (``Paths``, scopes, the registrar, ``iss``, client documents) and hooks: the
pages' wording (``ConsentPages``), the profile choice (``ProfileChoice``), the consent hook
(``ConsentCheck``) and the upstream sign-in (``SignIn``).

Nothing here names a venue or the gateway: no client ids, scopes, endpoint paths or page
wording; this package imports neither server. One RFC, one module (``_rfc6749_authorize``,
``_rfc6749_token``, ``_rfc6749_scope``, ``_rfc7009``, …).
"""

from ordergate.oauth._cimd import (
    ClientDocuments,
    DocumentRefused,
    is_public_address,
    metadata_url_problem,
)
from ordergate.oauth._consent import (
    ConsentCheck,
    ConsentField,
    ConsentPrompt,
    ConsentRefusal,
    ProfileChoice,
    SignedIn,
)
from ordergate.oauth._pages import (
    PAGE_HEADERS,
    ConsentPages,
    ConsentView,
    consent_form,
    html_page,
)
from ordergate.oauth._rfc6749 import (
    MAX_FORM_FIELDS,
    NO_STORE,
    ErrorCode,
    FormError,
    MultiParams,
    ParameterError,
    Refusal,
    read_form,
    redirect_with,
    single_param,
    token_error,
)
from ordergate.oauth._rfc6749_scope import ScopeError, granted_scope, parse_scope
from ordergate.oauth._rfc6749_token import (
    BAD_CODE,
    BAD_REFRESH,
    code_refusal,
    refresh_refusal,
)
from ordergate.oauth._rfc7591 import OwnClients, Registrar, RegistrationRefused, SharedClient
from ordergate.oauth._rfc7636 import (
    S256,
    is_valid_challenge,
    is_valid_verifier,
    s256_challenge,
    verify_s256,
)
from ordergate.oauth._rfc8252 import (
    LOOPBACK_HOSTS,
    MAX_REDIRECT_URI_LENGTH,
    REFUSED_SCHEMES,
    is_private_use,
    redirect_destination,
    redirect_problem,
    redirect_uri_problem,
)
from ordergate.oauth._rfc8414 import METADATA_PATH
from ordergate.oauth._rfc9728 import WELL_KNOWN_PREFIX, metadata_paths, www_authenticate
from ordergate.oauth._server import AuthorizationServer, Paths, check_lifetimes, check_origin
from ordergate.oauth._signin import SignIn
from ordergate.oauth._storage import (
    Authorization,
    AuthorizationStore,
    Client,
    ClientRegistry,
    CodeExchange,
    ConsentTicket,
    IssuedTokens,
    TokenRevoker,
)

__all__ = [
    "BAD_CODE",
    "BAD_REFRESH",
    "LOOPBACK_HOSTS",
    "MAX_FORM_FIELDS",
    "MAX_REDIRECT_URI_LENGTH",
    "METADATA_PATH",
    "NO_STORE",
    "PAGE_HEADERS",
    "REFUSED_SCHEMES",
    "S256",
    "WELL_KNOWN_PREFIX",
    "Authorization",
    "AuthorizationServer",
    "AuthorizationStore",
    "Client",
    "ClientDocuments",
    "ClientRegistry",
    "CodeExchange",
    "ConsentCheck",
    "ConsentField",
    "ConsentPages",
    "ConsentPrompt",
    "ConsentRefusal",
    "ConsentTicket",
    "ConsentView",
    "DocumentRefused",
    "ErrorCode",
    "FormError",
    "IssuedTokens",
    "MultiParams",
    "OwnClients",
    "ParameterError",
    "Paths",
    "ProfileChoice",
    "Refusal",
    "Registrar",
    "RegistrationRefused",
    "ScopeError",
    "SharedClient",
    "SignIn",
    "SignedIn",
    "TokenRevoker",
    "check_lifetimes",
    "check_origin",
    "code_refusal",
    "consent_form",
    "granted_scope",
    "html_page",
    "is_private_use",
    "is_public_address",
    "is_valid_challenge",
    "is_valid_verifier",
    "metadata_paths",
    "metadata_url_problem",
    "parse_scope",
    "read_form",
    "redirect_destination",
    "redirect_problem",
    "redirect_uri_problem",
    "redirect_with",
    "refresh_refusal",
    "s256_challenge",
    "single_param",
    "token_error",
    "verify_s256",
    "www_authenticate",
]
