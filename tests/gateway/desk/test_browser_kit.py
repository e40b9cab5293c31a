"""Without chromium or playwright the browser tests skip saying how to get them, except in CI,
where they fail."""

from __future__ import annotations

import pytest
from browser_kit import _missing


def test_a_missing_browser_skips_with_a_how_to_outside_ci_and_fails_in_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y chromium"):
        _missing("chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="required in CI"):
        _missing("chromium")
