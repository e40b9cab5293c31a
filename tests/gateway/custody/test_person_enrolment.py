"""A hosted rail's person enrols their own code on the page the upstream sign-in ends on: the
client gets its code only once a first code confirms it, in the browser that signed in."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx2
import pytest
from custody_kit import Custodian, custodian
from oauth_testkit import challenge_of, new_verifier, person_enrolment
from sqlalchemy import select

from ordergate.gateway._schema import connections


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch) as served:
        yield served


def _enrolment_page(rail: Custodian, person: httpx2.Client) -> httpx2.Response:
    to_upstream = rail.approve(person, rail.register(), challenge_of(new_verifier()))
    assert to_upstream.status_code == 302, to_upstream.text
    callback = rail.sign_in_upstream(person, to_upstream.headers["location"])
    page = person.get(callback)
    assert page.status_code == 200, page.text
    return page


def _step(rail: Custodian) -> None:
    rail.clock.advance(timedelta(seconds=30))


def test_the_enrolment_page_shows_the_code_once_and_a_wrong_first_code_asks_again(
    rail: Custodian,
) -> None:
    with rail.browser() as person:
        page = _enrolment_page(rail, person)
        assert "<svg" in page.text and page.headers["cache-control"] == "no-store"
        form, secret = person_enrolment(page.text, rail.clock.now())
        [row] = rail.rows()
        assert secret not in str(row["person_totp_sealed"]) and row["person_totp_step"] is None
        wrong = person.post(rail.url + "/oauth/callback", data={**form, "person_code": "000000"})
        assert wrong.status_code == 200 and 'id="problem"' in wrong.text
        assert "code=" not in wrong.text
        _step(rail)
        again, _ = person_enrolment(wrong.text, rail.clock.now())
        back = person.post(rail.url + "/oauth/callback", data=again)
    assert back.status_code == 302, back.text
    assert "code=" in back.headers["location"]
    with rail.engine.connect() as db:
        step = db.execute(select(connections.c.person_totp_step)).scalar_one()
    assert step is not None


def test_an_enrolment_posted_from_another_browser_or_altered_is_refused(rail: Custodian) -> None:
    with rail.browser() as person:
        page = _enrolment_page(rail, person)
        form, _ = person_enrolment(page.text, rail.clock.now())
        with rail.browser() as other:
            elsewhere = other.post(rail.url + "/oauth/callback", data=form)
        assert elsewhere.status_code == 403, elsewhere.text
        altered = {**form, "enrolment": form["enrolment"][:-4] + "AAAA"}
        tampered = person.post(rail.url + "/oauth/callback", data=altered)
        assert tampered.status_code == 403, tampered.text
        missing = person.post(rail.url + "/oauth/callback", data={"person_code": "123456"})
        assert missing.status_code == 400, missing.text
        _step(rail)
        form, _ = person_enrolment(page.text, rail.clock.now())
        confirmed = person.post(rail.url + "/oauth/callback", data=form)
        assert confirmed.status_code == 302, confirmed.text
        replayed = person.post(rail.url + "/oauth/callback", data=form)
    assert replayed.status_code == 403, replayed.text  # its browser binding was spent
