"""RFC 6749 §3.3: the scope grammar and the one rule both servers apply."""

from __future__ import annotations

import pytest

from ordergate.oauth import ScopeError, granted_scope, parse_scope


@pytest.mark.parametrize(
    "value",
    ["", " ", " a", "a ", "a  b", "a\tb", "a\nb", 'a "b"', "a\\b", "café"],
)
def test_a_scope_outside_the_grammar_is_malformed(value: str) -> None:
    with pytest.raises(ScopeError, match="malformed"):
        parse_scope(value)


def test_scope_tokens_are_a_set() -> None:
    assert parse_scope("b a b") == frozenset({"a", "b"})
    assert parse_scope("!#[]~") == frozenset({"!#[]~"})


def test_an_absent_scope_is_the_whole_offer() -> None:
    assert granted_scope(None, ("a", "b")) == "a b"


def test_a_scope_within_the_offer_is_granted_in_the_offers_order() -> None:
    assert granted_scope("b a a", ("a", "b", "c")) == "a b"
    assert granted_scope("internal", ("internal",)) == "internal"


@pytest.mark.parametrize("requested", ["internal admin", "admin", "internal offline_access"])
def test_a_scope_naming_what_is_not_offered_is_refused(requested: str) -> None:
    with pytest.raises(ScopeError, match="may name only internal"):
        granted_scope(requested, ("internal",))


@pytest.mark.req("oauth.scope.narrowed")
def test_narrowing_keeps_what_is_offered_and_refuses_a_scope_of_nothing_offered() -> None:
    assert granted_scope("internal offline_access", ("internal",), narrow=True) == "internal"
    assert granted_scope("c b x", ("a", "b", "c"), narrow=True) == "b c"
    assert granted_scope(None, ("a", "b"), narrow=True) == "a b"
    with pytest.raises(ScopeError, match="names nothing offered here: ask for internal"):
        granted_scope("offline_access", ("internal",), narrow=True)
    with pytest.raises(ScopeError, match="malformed"):
        granted_scope("internal  offline_access", ("internal",), narrow=True)
