"""Where the gateway's authorization server answers (the gateway's rate limiter classes
requests by these same paths: register, authorize + consent + callback, token + revoke)."""

from __future__ import annotations

__all__ = [
    "AUTHORIZATION_PATH",
    "CALLBACK_PATH",
    "CONSENT_PATH",
    "REGISTRATION_PATH",
    "REVOCATION_PATH",
    "TOKEN_PATH",
]

REGISTRATION_PATH = "/oauth/register"
AUTHORIZATION_PATH = "/oauth/authorize"  # GET: the consent page
CONSENT_PATH = "/oauth/consent"  # POST: the consent page's form
CALLBACK_PATH = "/oauth/callback"  # GET: the upstream's answer to a person's sign-in
TOKEN_PATH = "/oauth/token"
REVOCATION_PATH = "/oauth/revoke"
