"""The response headers every HTML page of an authorization server sends.

Sign-in pages forbid framing (a consent page inside someone else's frame is a click-jacking
target), are never cached and send no referrer (the page URL carries the request). Each server
renders its own pages; only these headers are shared.
"""

from __future__ import annotations

__all__ = ["PAGE_HEADERS"]

PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "X-Frame-Options": "DENY",
    # No form-action: browsers apply it to the redirect that follows the form post too, and
    # that redirect goes to the client's loopback or https URI.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}
