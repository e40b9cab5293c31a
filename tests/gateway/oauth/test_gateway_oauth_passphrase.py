"""The owner passphrase is kept as a hash and never shown."""

from __future__ import annotations

from ordergate.core import Secret
from ordergate.gateway.oauth._passphrase import OwnerPassphrase


def test_the_passphrase_matches_only_itself_and_never_shows() -> None:
    passphrase = OwnerPassphrase(Secret("open sesame, slowly"))
    assert passphrase.matches("open sesame, slowly")
    assert not passphrase.matches("open sesame")
    assert not passphrase.matches(None)
    assert "sesame" not in repr(passphrase) and "sesame" not in str(vars(passphrase))
