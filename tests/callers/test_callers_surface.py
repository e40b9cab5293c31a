"""``ordergate.callers`` exports exactly its declared names (kept here until the package joins
``tests/test_public_surface.py``)."""

from __future__ import annotations

import ordergate.callers

DECLARED = {
    "CALLER_PATTERN", "DEFAULT_CACHE_SIZE", "ENV_CALLER_TOKEN_KEY", "ENV_MASTER_SECRET",
    "MAX_TOKEN_LENGTH", "MAX_TTL", "MIN_TTL", "PROFILE_PATTERN", "CallerClaims", "CallerKey",
    "CallerRefusal", "CallerVerifier", "KeySource", "RefusalReason", "looks_like_caller_token",
    "mint",
}  # fmt: skip


def test_the_callers_package_exports_exactly_the_declared_names() -> None:
    assert set(ordergate.callers.__all__) == DECLARED
    for name in DECLARED:
        assert hasattr(ordergate.callers, name), name
