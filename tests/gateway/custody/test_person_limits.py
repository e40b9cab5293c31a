"""A person's own limits on a hosted rail: with their own code they set their connection's
limits anywhere up to the operator's ceiling (the rail's policy), never above it; the operator
tightens them with no one's consent but never loosens them; the guard holds each order of the
connection to the limits in force; and the person's console shows them under the ceiling."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx2
import pytest
from custody_kit import Custodian, custodian
from owner_testkit import PASSPHRASE, owner_channel
from person_console_kit import KEY, PersonConsole, connect_with_passkey
from sqlalchemy import text

POLICY = """
approval = "never"
[limits]
max_order_usd = "100"
[symbols]
allow = ["SPY"]
"""


@pytest.fixture
def policy() -> str:
    return POLICY


@pytest.fixture
def rail(gateway: Custodian) -> Custodian:
    """The conftest's rail on SQLite and on Postgres, under this module's ``POLICY``."""
    return gateway


def _buy(rail: Custodian, token: str, usd: str) -> dict[str, Any]:
    order = {"symbol": "SPY", "side": "buy", "type": "market", "dollar_amount": usd}
    return rail.place(token, order)


def _set_own(
    rail: Custodian, person: int, limits: dict[str, Any], code: str | None = None
) -> httpx2.Response:
    return rail.person_post("/person/limits", person, {"limits": limits}, code=code)


def _tighten(rail: Custodian, connection_id: str, limits: dict[str, Any]) -> httpx2.Response:
    with owner_channel(rail.home) as http:
        return http.post(f"/owner/connections/{connection_id}/limits", json={"limits": limits})


def _in_force(answer: httpx2.Response, name: str) -> dict[str, Any]:
    [row] = [row for row in answer.json()["limits"] if row["name"] == name]
    return dict(row)


def _limit_acts(rail: Custodian) -> list[str]:
    with rail.engine.connect() as db:
        rows = db.execute(text("SELECT why, detail FROM decisions WHERE kind = 'person_act'"))
        return [row.why for row in rows if json.loads(row.detail)["act"] == "limits_set"]


def _refused_for(data: dict[str, Any], reason: str) -> bool:
    return data["status"] == "refused" and reason in json.dumps(data)


@pytest.mark.req("rail.person.limits")
def test_the_person_loosens_their_own_limit_up_to_the_ceiling_and_the_guard_holds_to_it(
    rail: Custodian,
) -> None:
    token = rail.connect()
    [connection_id] = rail.connection_ids
    tightened = _tighten(rail, connection_id, {"max_order_usd": "10"})
    assert tightened.status_code == 200, tightened.text
    assert _in_force(tightened, "max_order_usd")["in_force"] == "10"
    assert _refused_for(_buy(rail, token, "20"), "max_order_usd")

    loosened = _set_own(rail, 0, {"max_order_usd": "50"})
    assert loosened.status_code == 200, loosened.text
    assert _in_force(loosened, "max_order_usd") == {
        "name": "max_order_usd", "ceiling": "100", "own": "50", "in_force": "50",
        "set_by": "person", "floor": False,
    }  # fmt: skip
    placed = _buy(rail, token, "20")
    assert placed["status"] == "submitted", placed
    assert rail.settled(placed["filing_id"]) == "filled"
    assert _refused_for(_buy(rail, token, "60"), "max_order_usd")

    above = _set_own(rail, 0, {"max_order_usd": "150"})
    assert above.status_code == 403, above.text
    assert above.json()["error"]["code"] == "limit_above_ceiling"
    assert above.json()["error"]["field"] == "limits.max_order_usd"
    assert _refused_for(_buy(rail, token, "70"), "max_order_usd")

    up_to_ceiling = _set_own(rail, 0, {"max_order_usd": None})
    assert _in_force(up_to_ceiling, "max_order_usd")["in_force"] == "100"
    placed = _buy(rail, token, "80")
    assert placed["status"] == "submitted", placed
    assert rail.settled(placed["filing_id"]) == "filled"
    assert _limit_acts(rail) == [
        "person act limits_set authorised",
        "person act limits_set refused (limit_above_ceiling)",
        "person act limits_set authorised",
    ]


@pytest.mark.req("rail.person.limits")
def test_a_count_limit_of_the_person_holds_their_open_orders_and_a_bad_value_names_its_field(
    rail: Custodian,
) -> None:
    rail.connect()
    mine = _set_own(rail, 0, {"max_open_orders": 2, "max_position_pct": "12.5"})
    assert mine.status_code == 200, mine.text
    assert _in_force(mine, "max_open_orders")["in_force"] == 2
    assert _in_force(mine, "max_position_pct")["own"] == "12.5"
    for asked, field in (
        ({"max_open_orders": "two"}, "limits.max_open_orders"),
        ({"max_order_usd": 12.5}, "limits.max_order_usd"),
        ({"max_order_usd": "-1"}, "limits.max_order_usd"),
        ({"mode": "live"}, "limits.mode"),
    ):
        refused = _set_own(rail, 0, asked)
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"]["field"] == field
    above = _set_own(rail, 0, {"max_open_orders": 6})  # the policy's default is 5
    assert above.json()["error"]["field"] == "limits.max_open_orders"
    floor = _set_own(rail, 0, {"min_cash_usd": "-1"})
    assert floor.status_code == 400


@pytest.mark.req("rail.person.limits")
def test_the_operator_tightens_a_persons_limits_without_consent_but_never_loosens_them(
    rail: Custodian,
) -> None:
    rail.connect()
    [connection_id] = rail.connection_ids
    assert _tighten(rail, connection_id, {"max_order_usd": "80"}).status_code == 200
    looser = _tighten(rail, connection_id, {"max_order_usd": "90"})
    assert looser.status_code == 403, looser.text
    assert looser.json()["error"]["code"] == "limit_loosens"
    assert "limits.max_order_usd" in looser.json()["error"]["message"]
    floor = _tighten(rail, connection_id, {"min_cash_usd": "25"})
    assert _in_force(floor, "min_cash_usd")["in_force"] == "25"
    lower_floor = _tighten(rail, connection_id, {"min_cash_usd": "5"})
    assert lower_floor.json()["error"]["code"] == "limit_loosens"
    assert _tighten(rail, "no-such-connection", {"max_order_usd": "1"}).status_code == 404
    bad = _tighten(rail, connection_id, {"max_order_usd": "lots"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_limit"
    # The person loosens back up to the ceiling with their own code.
    back = _set_own(rail, 0, {"max_order_usd": "100", "min_cash_usd": "0"})
    assert _in_force(back, "max_order_usd")["in_force"] == "100"
    assert _in_force(back, "min_cash_usd")["in_force"] == "0"
    with rail.engine.connect() as db:
        kinds = db.execute(
            text("SELECT why FROM decisions WHERE kind = 'connection_limits'")
        ).scalars()
        assert list(kinds) == ["the operator tightened a connection's limits"] * 2


@pytest.mark.req("rail.person.limits")
def test_the_operators_code_or_another_persons_sets_none_of_a_persons_limits(
    rail: Custodian,
) -> None:
    rail.connect()
    rail.connect()
    bob_code = rail.person_code(rail.secrets[1])
    for code in (PASSPHRASE, bob_code):
        refused = _set_own(rail, 0, {"max_order_usd": "90"}, code=code)
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["code"] == "person_code_wrong"
        assert refused.json()["error"]["field"] == "person_code"
    with rail.engine.connect() as db:
        assert db.execute(text("SELECT count(*) FROM connection_limits")).scalar() == 0
    assert _limit_acts(rail) == ["person act limits_set refused (person_code_wrong)"] * 2


@pytest.mark.req("rail.person.limits")
def test_a_persons_console_shows_their_limits_under_the_ceiling_and_sets_one_with_their_code(
    rail: Custodian,
) -> None:
    rail.connect()
    [connection_id] = rail.connection_ids
    [secret] = rail.secrets
    _tighten(rail, connection_id, {"max_order_usd": "10"})
    browser = PersonConsole(rail)
    try:
        form = {
            "csrf": browser.csrf(),
            "connection_id": connection_id,
            "person_code": rail.person_code(secret),
        }
        signed = browser.http.post(
            "/console/person/code-sign-in", data=form, headers={"origin": browser.base}
        )
        found = KEY.search(signed.text)
        assert signed.status_code == 200 and found is not None, signed.text
        browser.http.headers["x-console-key"] = found.group(1)
        page = browser.get("/mine").text
        assert _row(page, "max_order_usd") == ("10", "10", "100")
        assert _row(page, "max_open_orders") == ("5", "—", "5")

        def post(value: str, code: str) -> httpx2.Response:
            asked = {"csrf": browser.csrf("/mine"), "name": "max_order_usd", "value": value}
            return browser.http.post(
                "/console/mine/limits",
                data={**asked, "owner_code": code},
                headers={"origin": browser.base},
            )

        assert post("40", PASSPHRASE).status_code == 403
        above = post("400", rail.person_code(secret))
        assert above.status_code == 403 and "limits.max_order_usd" in above.text
        done = post("40", rail.person_code(secret))
        assert done.status_code == 303, done.text
        assert _row(browser.get("/mine").text, "max_order_usd") == ("40", "40", "100")
    finally:
        browser.close()


def _row(page: str, name: str) -> tuple[str, str, str]:
    """The limit ``name``'s row on the console: in force, the person's own, the ceiling."""
    found = re.search(
        rf'<tr data-limit="{name}">.*?class="in-force">([^<]*)</td><td class="own">([^<]*)</td>'
        r'<td class="ceiling">([^<]*)</td>',
        page,
    )
    assert found is not None, page
    return found.group(1), found.group(2), found.group(3)


@pytest.mark.req("rail.person.limits")
def test_the_operator_shows_and_tightens_a_persons_limits_from_the_command_line(
    rail: Custodian,
) -> None:
    rail.connect()
    [connection_id] = rail.connection_ids
    tightened = rail.command(
        "connections", "limits", connection_id, "max_order_usd=20", "max_open_orders=2"
    )
    assert tightened.exit_code == 0, tightened.output
    shown = rail.command("connections", "limits", connection_id)
    assert shown.exit_code == 0, shown.output
    [line] = [row for row in shown.stdout.splitlines() if row.startswith("max_order_usd")]
    assert "in force 20" in line and "ceiling 100" in line and "set by operator" in line
    looser = rail.command("connections", "limits", connection_id, "max_order_usd=30")
    assert looser.exit_code == 2 and "limit_loosens" in looser.stderr


@pytest.mark.req("rail.person.limits")
def test_a_person_sets_a_limit_on_their_console_with_their_passkey_bound_to_that_change(
    rail: Custodian,
) -> None:
    passkey, _, _ = connect_with_passkey(rail)
    browser = PersonConsole(rail)
    try:
        assert browser.sign_in(passkey).status_code == 200
        csrf = browser.csrf("/mine")

        def options(value: str) -> httpx2.Response:
            asked = {"purpose": "limits", "name": "max_order_usd", "value": value}
            return browser.post_json("/mine/passkey/options", asked, csrf)

        above = options("400")  # refused before any ceremony
        assert above.status_code == 403 and "limits.max_order_usd" in above.text
        offered = options("40")
        assert offered.status_code == 200, offered.text
        done = browser.post_json("/mine/limits", passkey.get(offered.json()), csrf)
        assert done.status_code == 200, done.text
        assert _in_force(done, "max_order_usd")["in_force"] == "40"
        replayed = browser.post_json("/mine/limits", passkey.get(offered.json()), csrf)
        assert replayed.status_code == 403  # the challenge was spent
        assert _row(browser.get("/mine").text, "max_order_usd") == ("40", "40", "100")
    finally:
        browser.close()
    with rail.engine.connect() as db:
        rows = db.execute(text("SELECT why, detail FROM decisions WHERE kind = 'person_act'"))
        acts = [
            (row.why, json.loads(row.detail).get("credential"))
            for row in rows
            if json.loads(row.detail)["act"] == "limits_set"
        ]
    assert acts == [
        ("person act limits_set refused (limit_above_ceiling)", "person_totp"),
        ("person act limits_set authorised", "person_passkey"),
    ]


OPTIONS_POLICY = POLICY + '[options]\nunderlyings = ["AAPL"]\nmax_premium_usd = "100"\n'


@pytest.mark.req("rail.person.limits")
def test_a_persons_option_caps_are_set_under_the_rails_options_ceiling_and_refused_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with custodian(tmp_path, monkeypatch, policy=OPTIONS_POLICY) as rail:
        rail.connect()
        mine = _set_own(rail, 0, {"options.max_premium_usd": "40", "options.max_contracts": 1})
        assert mine.status_code == 200, mine.text
        assert _in_force(mine, "options.max_premium_usd") == {
            "name": "options.max_premium_usd", "ceiling": "100", "own": "40", "in_force": "40",
            "set_by": "person", "floor": False,
        }  # fmt: skip
        above = _set_own(rail, 0, {"options.max_premium_usd": "400"})
        assert above.status_code == 403
        assert above.json()["error"]["field"] == "options.max_premium_usd"
        # A later first day to expiry than the last one allowed makes no policy: refused.
        crossed = _set_own(rail, 0, {"options.min_days_to_expiry": 90})
        assert crossed.status_code == 400, crossed.text
        assert crossed.json()["error"]["field"].startswith("options.")
        [connection_id] = rail.connection_ids
        tightened = _tighten(rail, connection_id, {"options.max_premium_usd": "30"})
        assert _in_force(tightened, "options.max_premium_usd")["in_force"] == "30"
    (tmp_path / "none").mkdir()
    with custodian(tmp_path / "none", monkeypatch, policy=POLICY) as plain:
        plain.connect()
        none = _set_own(plain, 0, {"options.max_contracts": 1})
        assert none.status_code == 403
        assert none.json()["error"]["field"] == "options.max_contracts"
        names = {row["name"] for row in _tighten(plain, plain.connection_ids[0], {
            "max_order_usd": "90"
        }).json()["limits"]}  # fmt: skip
        assert not any(name.startswith("options.") for name in names)
