"""Where the tests find the reference captures: the copy shipped in the package.

The captures live in ``src/ordergate/inventory/data/`` (their provenance is in the README
beside them); tests read them there and never outside the repository.
"""

from __future__ import annotations

from pathlib import Path

import ordergate.inventory

__all__ = ["CONTRACT", "INVENTORY", "REFERENCE"]

REFERENCE = Path(ordergate.inventory.__file__).resolve().parent / "data"
CONTRACT = REFERENCE / "contract-1.7.0.json"
INVENTORY = REFERENCE / "inventory-2026-09-21.json"
