"""Debian's ``chromium`` driven by Playwright (its own browser downloads are never used), with a
virtual WebAuthn authenticator through the DevTools protocol: the console's browser tests and
a hosted rail person's passkey ceremony share it. Without chromium or playwright the tests
skip saying how to install them, except in CI (``CI`` set), where they fail: CI must run them.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from system_testkit import missing

CHROMIUM = "/usr/bin/chromium"
WAIT_MS = 10_000
"""The bound on every wait for the page (Playwright's ``expect`` and ``wait_for``)."""
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
_AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
}


def _missing(what: str) -> None:
    missing(
        what,
        "`apt-get install -y chromium` and `scripts/uv sync` (playwright is a dev "
        "dependency; never `playwright install`)",
        "run the console's browser tests",
    )


def sync_playwright() -> Any:
    try:
        from playwright.sync_api import sync_playwright as start
    except ImportError:
        _missing("playwright")
    if shutil.which(CHROMIUM) is None:
        _missing("chromium")
    return start()


def expect(target: Any, **options: Any) -> Any:
    """Playwright's ``expect`` (imported here, so a test module without playwright skips
    instead of failing to import); each wait is bounded by ``WAIT_MS`` unless it says its own
    ``timeout``."""
    from playwright.sync_api import expect as playwright_expect

    playwright_expect.set_options(timeout=WAIT_MS)
    return playwright_expect(target, **options)


@contextmanager
def chromium_page(playwright: Any, profile: Path) -> Iterator[Any]:
    """A page in a fresh Chromium profile at ``profile`` with a virtual authenticator of its
    own (a person's device: user-verifying, keeping discoverable credentials)."""
    browser = playwright.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, args=_ARGS, headless=True, viewport=DESKTOP
    )
    try:
        browser.set_default_timeout(WAIT_MS)
        page = browser.pages[0] if browser.pages else browser.new_page()
        devtools = browser.new_cdp_session(page)
        devtools.send("WebAuthn.enable")
        devtools.send("WebAuthn.addVirtualAuthenticator", {"options": _AUTHENTICATOR})
        yield page
    finally:
        browser.close()
