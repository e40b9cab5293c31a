"""A real PKCS#11 token for the key-provider tests: SoftHSM2 (Debian's ``softhsm2``), its
token directory and configuration in a temp folder of this test process, one fresh token per
test. Without the module the test skips naming the install command (in CI it fails:
``system_testkit``).

SoftHSM reads ``SOFTHSM2_CONF`` once, when the module is first loaded into the process, so
the configuration is made once, at the first ``new_token``, before anything loads the
module; see ``new_token`` for how later tokens become visible.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from system_testkit import missing, program

from ordergate.core import Secret
from ordergate.gateway.keys import Pkcs11Provider

SOFTHSM_MODULE = "/usr/lib/softhsm/libsofthsm2.so"
SOFTHSM_HOW = "`apt-get install -y softhsm2`"
SO_PIN = "so-pin-5678"

_conf: Path | None = None


@dataclass(frozen=True)
class Token:
    """A fresh token: its label and user PIN, and the module that serves it."""

    module: str
    label: str
    pin: str

    def provider(self) -> Pkcs11Provider:
        return Pkcs11Provider(self.module, self.label, Secret(self.pin))

    def env(self) -> dict[str, str]:
        """The gateway's environment naming this token (the PIN by variable)."""
        return {
            "ORDERGATE_KEY_PROVIDER": "pkcs11",
            "ORDERGATE_PKCS11_MODULE": self.module,
            "ORDERGATE_PKCS11_TOKEN": self.label,
            "ORDERGATE_PKCS11_PIN": self.pin,
        }


def _configuration() -> Path:
    global _conf
    if _conf is None:
        folder = Path(tempfile.mkdtemp(prefix="ordergate-softhsm-"))
        (folder / "tokens").mkdir()
        conf = folder / "softhsm2.conf"
        conf.write_text(
            f"directories.tokendir = {folder / 'tokens'}\n"
            "objectstore.backend = file\nlog.level = ERROR\n"
        )
        _conf = conf
    os.environ["SOFTHSM2_CONF"] = str(_conf)
    return _conf


def new_token() -> Token:
    """A fresh, initialised token with a random label and PIN, never handed out before.

    SoftHSM lists the tokens of its directory as they were when the module was loaded (or
    last re-initialised), so tokens are made in batches: the first before anything loads the
    module, the next ones while no provider holds a session (between tests, when few are
    left), the module then re-initialised to see them. A test takes at most a few."""
    if len(_pool) < LOW and not _sessions_open():
        _fill_pool()
    if not _pool:  # pragma: no cover - refilled between tests, long before it runs out
        raise AssertionError("no SoftHSM token left: a test took more than the pool's margin")
    return _pool.pop()


BATCH = 16
LOW = 6
_pool: list[Token] = []
_loaded = False


def _sessions_open() -> bool:
    from ordergate.gateway.keys import _provider

    return bool(_provider._OPEN)


def _fill_pool() -> None:
    global _loaded
    if not Path(SOFTHSM_MODULE).is_file():
        missing("SoftHSM2", SOFTHSM_HOW, "hold key-encryption keys on a real PKCS#11 token")
    util = program("softhsm2-util", SOFTHSM_HOW, "make a PKCS#11 token")
    conf = _configuration()
    for _ in range(BATCH):
        label = "og-" + secrets.token_hex(6)
        pin = secrets.token_hex(8)
        subprocess.run(
            [util, "--init-token", "--free", "--label", label, "--pin", pin, "--so-pin", SO_PIN],
            check=True,
            capture_output=True,
            env={**os.environ, "SOFTHSM2_CONF": str(conf)},
            timeout=30,
        )
        _pool.append(Token(module=SOFTHSM_MODULE, label=label, pin=pin))
    if _loaded:
        import pkcs11

        pkcs11.lib(SOFTHSM_MODULE).reinitialize()
    _loaded = True
