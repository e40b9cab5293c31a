"""Order ids compared and sent in one spelling (issue 12 §4.1)."""

from __future__ import annotations

import uuid

import pytest

from ordergate.venues import canonical_order_id
from ordergate.venues._order_ids import new_paper_order_id

ID = "9c5b94b1-35ad-49bb-b118-8e8fc24abf80"
HEX = uuid.UUID(ID).hex


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        (ID, ID),
        (ID.upper(), ID),
        ("{" + ID + "}", ID),
        ("urn:uuid:" + ID, ID),
        (HEX, ID),
        (HEX.upper(), ID),
        ("paper-" + HEX, "paper-" + HEX),
        ("paper-" + HEX.upper(), "paper-" + HEX),
        ("paper-" + ID, "paper-" + HEX),
        (" " + ID, None),
        (ID + "\n", None),
        (ID + "0", None),
        (ID[:-1], None),
        ("o-1", None),
        ("", None),
        ("paper-", None),
        ("PAPER-" + HEX, None),
        ("urn:uuid:" + ID + "x" * 100, None),
        ("９" * 32, None),  # fullwidth digits
        (7, None),
        (None, None),
        (["x"], None),
    ],
)
@pytest.mark.req("gateway.bypass.cancel-id-spelling")
def test_an_order_id_has_one_canonical_spelling_and_anything_else_is_none(
    given: object, canonical: str | None
) -> None:
    assert canonical_order_id(given) == canonical


def test_a_new_paper_order_id_is_already_canonical() -> None:
    fresh = new_paper_order_id()
    assert canonical_order_id(fresh) == fresh
