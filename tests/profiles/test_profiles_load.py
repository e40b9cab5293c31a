"""Loading profiles: the built-ins, home files, and every way a file is refused by name."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from ordergate.core import ConfigError
from ordergate.policy import DEFAULTS, PolicyConfig
from ordergate.profiles import (
    BUILTIN_PROFILES,
    DEFAULT_PROFILE,
    Permission,
    ProfileError,
    load_profiles,
)

READS = {
    Permission.ACCOUNT_READ,
    Permission.MARKET_READ,
    Permission.RESEARCH_READ,
    Permission.ORDERS_READ,
}


def _home(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "profiles"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return tmp_path


def _refusal(
    tmp_path: Path, files: dict[str, str], policy: PolicyConfig = DEFAULTS
) -> ProfileError:
    home = _home(tmp_path, files)
    with pytest.raises(ProfileError) as caught:
        load_profiles(home, policy)
    assert caught.value.code == "invalid_profile"
    return caught.value


def test_the_builtins_load_with_their_exhaustive_permissions_and_monitor_is_the_default() -> None:
    profiles = load_profiles(None, DEFAULTS)
    assert list(profiles) == list(BUILTIN_PROFILES)
    assert DEFAULT_PROFILE == "monitor"
    assert profiles.default is profiles["monitor"]
    assert profiles["monitor"].permissions == READS
    assert profiles["trader"].permissions == READS | {
        Permission.ORDERS_REVIEW,
        Permission.ORDERS_PLACE,
        Permission.ORDERS_CANCEL,
    }
    assert profiles["researcher"].permissions == {
        Permission.MARKET_READ,
        Permission.RESEARCH_READ,
    }
    for profile in profiles.values():
        assert profile.system_prompt
        assert profile.description
        assert profile.overrides.apply(DEFAULTS) == DEFAULTS


def test_a_home_profile_loads_beside_the_builtins_with_its_tightening(tmp_path: Path) -> None:
    home = _home(
        tmp_path,
        {
            "reporter.yaml": (
                "name: reporter\n"
                "description: Daily report\n"
                "permissions: [account.read, orders.read]\n"
                "system_prompt: You report; you never trade.\n"
                "policy:\n"
                "  limits: {max_order_usd: '25'}\n"
            ),
            "notes.txt": "not a profile",
        },
    )
    profiles = load_profiles(home, DEFAULTS)
    reporter = profiles.require("reporter")
    assert list(profiles) == [*BUILTIN_PROFILES, "reporter"]
    assert reporter.permissions == {Permission.ACCOUNT_READ, Permission.ORDERS_READ}
    assert reporter.allows(Permission.ORDERS_READ)
    assert not reporter.allows(Permission.ORDERS_PLACE)
    assert reporter.system_prompt == "You report; you never trade."
    assert reporter.overrides.apply(DEFAULTS).max_order_usd == Decimal(25)


def test_a_home_without_a_profiles_folder_gives_the_builtins(tmp_path: Path) -> None:
    assert list(load_profiles(tmp_path, DEFAULTS)) == list(BUILTIN_PROFILES)


def test_an_unknown_profile_name_is_refused_listing_the_known_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        load_profiles(None, DEFAULTS).require("admin")
    assert caught.value.key == "profile"
    assert "monitor" in caught.value.reason


def test_an_override_that_loosens_a_cap_is_refused_at_load(tmp_path: Path) -> None:
    error = _refusal(
        tmp_path,
        {"big.yaml": "name: big\npermissions: []\npolicy:\n  limits:\n    max_order_usd: '5000'\n"},
    )
    assert error.field == "policy.limits.max_order_usd"
    assert error.source.endswith("big.yaml")
    assert error.key == f"{error.source}:policy.limits.max_order_usd"


def test_a_symbol_outside_the_policys_allowlist_is_refused_at_load(tmp_path: Path) -> None:
    policy = PolicyConfig(allow=frozenset({"AAPL"}))
    error = _refusal(
        tmp_path,
        {"wide.yaml": "name: wide\npermissions: []\npolicy: {symbols: {allow: [AAPL, TSLA]}}\n"},
        policy,
    )
    assert error.field == "policy.symbols.allow"
    assert "TSLA" in error.reason


def test_an_unknown_permission_is_refused_naming_it_and_the_vocabulary(tmp_path: Path) -> None:
    error = _refusal(tmp_path, {"x.yaml": "name: x\npermissions: [market.read, orders.transfer]\n"})
    assert error.field == "permissions[1]"
    assert "orders.transfer" in error.reason
    assert all(permission.value in error.reason for permission in Permission)


def test_an_unknown_key_is_reported_by_name(tmp_path: Path) -> None:
    error = _refusal(tmp_path, {"x.yaml": "name: x\npermissions: []\npermisions: [orders.place]\n"})
    assert error.field == "permisions"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("name: x\npermissions: [market.read\n", ""),  # malformed YAML
        ("- name: x\n", ""),  # a list, not a mapping
        ("", ""),  # empty
        ("name: x\n", "permissions"),
        ("permissions: []\n", "name"),
        ("name: y\npermissions: []\n", "name"),  # differs from the file name x.yaml
        ("name: X\npermissions: []\n", "name"),
        ("name: x\npermissions: market.read\n", "permissions"),
        ("name: x\npermissions: []\ndescription: [a]\n", "description"),
        ("name: x\npermissions: []\nsystem_prompt: 3\n", "system_prompt"),
        ("name: x\npermissions: []\npolicy: {mode: live}\n", "policy.mode"),
        ("name: x\npermissions: []\npermissions: [orders.place]\n", "permissions"),  # twice
    ],
)
def test_a_malformed_profile_file_is_refused_naming_file_and_key(
    tmp_path: Path, text: str, field: str
) -> None:
    error = _refusal(tmp_path, {"x.yaml": text})
    assert error.field == field
    assert error.source == str(tmp_path / "profiles" / "x.yaml")


def test_a_home_file_may_not_redefine_a_builtin(tmp_path: Path) -> None:
    error = _refusal(tmp_path, {"monitor.yaml": "name: monitor\npermissions: [orders.place]\n"})
    assert error.field == "name"
    assert error.source.endswith("monitor.yaml")


def test_a_yml_file_is_refused_rather_than_silently_skipped(tmp_path: Path) -> None:
    error = _refusal(tmp_path, {"x.yml": "name: x\npermissions: []\n"})
    assert error.source.endswith("x.yml")


def test_one_bad_file_refuses_the_whole_set(tmp_path: Path) -> None:
    _refusal(
        tmp_path,
        {"a.yaml": "name: a\npermissions: []\n", "b.yaml": "name: b\npermissions: [root]\n"},
    )


def test_the_builtins_carry_no_overrides_so_they_load_under_any_policy() -> None:
    tight = PolicyConfig(max_order_usd=Decimal(1), allow=frozenset())
    assert set(load_profiles(None, tight)) == set(BUILTIN_PROFILES)


def test_yaml_anchors_are_read_and_a_key_given_twice_inside_policy_is_refused(
    tmp_path: Path,
) -> None:
    text = (
        "name: x\npermissions: &reads [market.read]\ndescription: shared\n"
        "policy: {limits: {max_order_usd: '5', max_order_usd: '500'}}\n"
    )
    error = _refusal(tmp_path, {"x.yaml": text})
    assert error.field == "max_order_usd"


def test_a_profile_using_a_yaml_alias_loads(tmp_path: Path) -> None:
    text = "name: x\npermissions: [market.read]\ndescription: &d Quotes\nsystem_prompt: *d\n"
    profile = load_profiles(_home(tmp_path, {"x.yaml": text}), DEFAULTS)["x"]
    assert profile.permissions == {Permission.MARKET_READ}
    assert profile.system_prompt == profile.description == "Quotes"


def test_a_profiles_path_that_is_not_a_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "profiles").write_text("oops", encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        load_profiles(tmp_path, DEFAULTS)
    assert caught.value.source == str(tmp_path / "profiles")


def test_a_file_that_is_not_utf8_is_refused_naming_it(tmp_path: Path) -> None:
    home = _home(tmp_path, {})
    (home / "profiles" / "x.yaml").write_bytes(b"name: \xff\xfe\n")
    with pytest.raises(ProfileError) as caught:
        load_profiles(home, DEFAULTS)
    assert caught.value.source.endswith("x.yaml")


def test_the_profiles_mapping_names_its_profiles_in_its_repr() -> None:
    assert repr(load_profiles(None, DEFAULTS)) == "Profiles(monitor, researcher, trader)"
