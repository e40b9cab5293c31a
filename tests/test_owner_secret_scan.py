"""The suite-wide scan (``conftest``) finds an owner secret or code wherever it lands."""

from __future__ import annotations

import owner_testkit
import pytest


@pytest.mark.req("owner.secrets.never-shown")
def test_the_scan_finds_a_registered_secret_and_a_code_but_not_digits_inside_other_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(owner_testkit, "SECRETS", {"JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"})
    monkeypatch.setattr(owner_testkit, "CODES", {"492039"})
    assert owner_testkit.leaks("log: secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP")
    assert owner_testkit.leaks('{"owner_code": "492039"}') == ["an owner code"]
    assert owner_testkit.leaks("price 12.492039 and id a492039b and 1492039") == []
