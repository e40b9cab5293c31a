"""A gateway with an enrolled owner, its console spoken to as a browser would (cookies, the
page's own Origin, the CSRF token read from the page), and a software passkey."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest
from desk_kit import HELD_POLICY, Desk, owner_desk

from ordergate.core import SteppedClock

BOUND_S = 30
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')
_KEY = re.compile(r'<meta name="console-key" content="([^"]+)"')


@dataclass
class Console:
    desk: Desk
    http: httpx2.Client
    clock: SteppedClock
    base: str
    """Where the console is opened: the gateway's URL, or ``localhost`` on its port."""

    @property
    def origin(self) -> dict[str, str]:
        return {"origin": self.base}

    def get(
        self, path: str, params: dict[str, str] | None = None, **headers: str
    ) -> httpx2.Response:
        return self.http.get(f"/console{path}", params=params, headers=headers)

    def csrf(self, path: str = "/sign-in") -> str:
        page = self.get(path)
        found = _CSRF.search(page.text)
        assert found is not None, page.text
        return found.group(1)

    def post(
        self, path: str, form: dict[str, str] | None = None, **headers: str
    ) -> httpx2.Response:
        return self.http.post(
            f"/console{path}", data=form or {}, headers={**self.origin, **headers}
        )

    def post_json(self, path: str, body: Any, csrf: str, **headers: str) -> httpx2.Response:
        return self.http.post(
            f"/console{path}",
            json=body,
            headers={**self.origin, "x-csrf-token": csrf, **headers},
        )

    def keep_key(self, signed: httpx2.Response) -> None:
        """Keep the key a passkey sign-in answered, as ``passkey.js`` keeps it."""
        self.http.headers["x-console-key"] = signed.json()["key"]

    def forget(self) -> None:
        """A new tab in a new browser: no cookie, no key."""
        self.http.cookies.clear()
        self.http.headers.pop("x-console-key", None)

    def sign_in(self, code: str | None = None) -> httpx2.Response:
        """Sign in as the owner's page does: the session's key, handed to the page, is then
        sent on every request (``X-Console-Key``), as the console's script sends it."""
        token = self.csrf()
        signed = self.post(
            "/sign-in", {"csrf": token, "owner_code": code or self.desk.codes.passphrase or ""}
        )
        found = _KEY.search(signed.text)
        if signed.status_code == 200 and found is not None:
            self.http.headers["x-console-key"] = found.group(1)
        return signed


@contextmanager
def console(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    policy: str = HELD_POLICY,
    localhost: bool = False,
) -> Iterator[Console]:
    """``localhost``: open the console at ``http://localhost:PORT`` (the passkeys' relying
    party) rather than at the gateway's ``127.0.0.1`` URL."""
    with owner_desk(tmp_path, monkeypatch, policy=policy) as desk:
        assert desk.clock is not None
        base = desk.url.replace("127.0.0.1", "localhost") if localhost else desk.url
        with httpx2.Client(base_url=base, timeout=BOUND_S, follow_redirects=False) as http:
            yield Console(desk, http, desk.clock, base)


IDLE_PAST = timedelta(minutes=16)
