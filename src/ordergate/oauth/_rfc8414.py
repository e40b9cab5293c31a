"""RFC 8414, OAuth 2.0 Authorization Server Metadata: where the document is served.

Only the well-known path (§3) is shared; each server builds its own document, because the
endpoint paths, scopes and grant types it names are that server's.
"""

from __future__ import annotations

__all__ = ["METADATA_PATH"]

METADATA_PATH = "/.well-known/oauth-authorization-server"
