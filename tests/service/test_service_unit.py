"""The systemd unit that runs the gateway as its own user (issue 12 §3), directive by
directive, and as ``systemd-analyze verify`` reads it."""

from __future__ import annotations

import configparser
import subprocess
from pathlib import Path

import pytest
from system_testkit import SYSTEMD_HOW, program
from typer.testing import CliRunner

from ordergate.cli import app
from ordergate.core import ConfigError
from ordergate.service import ServiceUnit, installed_executable

EXECUTABLE = Path("/opt/ordergate/bin/ordergate")
VERIFY_BOUND_S = 60.0

HARDENING = {
    "NoNewPrivileges": "yes",
    "ProtectSystem": "strict",
    "ProtectHome": "yes",
    "PrivateTmp": "yes",
    "PrivateDevices": "yes",
    "ProtectKernelTunables": "yes",
    "ProtectKernelModules": "yes",
    "ProtectKernelLogs": "yes",
    "ProtectControlGroups": "yes",
    "ProtectClock": "yes",
    "ProtectHostname": "yes",
    "RestrictSUIDSGID": "yes",
    "RestrictRealtime": "yes",
    "LockPersonality": "yes",
    "RestrictNamespaces": "yes",
    "RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
    "SystemCallArchitectures": "native",
    "CapabilityBoundingSet": "",
    "AmbientCapabilities": "",
    "UMask": "0077",
}


def sections(text: str) -> dict[str, dict[str, str]]:
    parser = configparser.ConfigParser(
        interpolation=None, delimiters=("=",), comment_prefixes=("#",), strict=True
    )
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    return {name: dict(parser[name]) for name in parser.sections()}


@pytest.mark.req("owner.separation.own-user")
def test_the_unit_runs_the_gateway_on_loopback_as_its_own_user_with_the_usual_hardening() -> None:
    unit = ServiceUnit(executable=EXECUTABLE, user="gate", home=Path("/srv/gate"), port=8799)
    service = sections(unit.render())["Service"]
    assert service == {
        "Type": "exec",
        "User": "gate",
        "Group": "gate",
        "Environment": "ORDERGATE_HOME=/srv/gate",
        "EnvironmentFile": "-/etc/ordergate/ordergate.env",
        "ExecStart": f"{EXECUTABLE} serve --host 127.0.0.1 --port 8799 "
        "--owner-socket /run/ordergate/owner.sock",
        "RuntimeDirectory": "ordergate",
        "RuntimeDirectoryMode": "0750",
        "WorkingDirectory": "/srv/gate",
        "Restart": "on-failure",
        "RestartSec": "5s",
        "RestartPreventExitStatus": "2",
        "ReadWritePaths": "/srv/gate",
        **HARDENING,
    }


def test_the_unit_starts_after_the_network_and_is_wanted_by_multi_user() -> None:
    parsed = sections(ServiceUnit(executable=EXECUTABLE).render())
    assert parsed["Unit"]["After"] == "network-online.target"
    assert parsed["Unit"]["Wants"] == "network-online.target"
    assert parsed["Install"] == {"WantedBy": "multi-user.target"}


def test_the_defaults_are_the_ordergate_user_in_var_lib_on_port_8787() -> None:
    service = sections(ServiceUnit(executable=EXECUTABLE).render())["Service"]
    assert (service["User"], service["ReadWritePaths"]) == ("ordergate", "/var/lib/ordergate")
    assert service["ExecStart"].endswith("--port 8787 --owner-socket /run/ordergate/owner.sock")


@pytest.mark.req("owner.separation.own-user")
def test_systemd_analyze_verifies_the_unit_print_shows(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["service", "install", "--print"])
    assert result.exit_code == 0, result.output
    unit = tmp_path / "ordergate.service"
    unit.write_text(result.output)
    analyze = program("systemd-analyze", SYSTEMD_HOW, "verify the systemd unit")
    verified = subprocess.run(
        [analyze, "verify", str(unit)],
        capture_output=True,
        text=True,
        timeout=VERIFY_BOUND_S,
        cwd=tmp_path,
    )
    assert (verified.returncode, verified.stdout, verified.stderr) == (0, "", "")


def test_print_shows_the_unit_of_this_installations_executable() -> None:
    result = CliRunner().invoke(app, ["service", "install", "--print", "--port", "9001"])
    assert result.exit_code == 0, result.output
    executable = installed_executable()
    assert (
        f"ExecStart={executable} serve --host 127.0.0.1 --port 9001 "
        "--owner-socket /run/ordergate/owner.sock\n"
    ) in result.output
    assert executable.is_file()


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--user", "Gate Keeper"], "--user"),
        (["--user", "9gate"], "--user"),
        (["--home", "relative/home"], "--home"),
        (["--home", "/var/lib/../etc"], "--home"),
        (["--home", "/var/lib/my gate"], "--home"),
        (["--home", "/var/lib/100%"], "--home"),
        (["--home", "/home/ordergate"], "--home"),
        (["--home", "/root/ordergate"], "--home"),
        (["--port", "0"], "--port"),
        (["--port", "65536"], "--port"),
    ],
)
def test_an_option_the_unit_cannot_hold_is_refused_by_name_with_exit_code_2(
    args: list[str], named: str
) -> None:
    result = CliRunner().invoke(app, ["service", "install", "--print", *args])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"configuration: {named}: ")


def test_an_executable_path_the_unit_cannot_hold_is_refused() -> None:
    with pytest.raises(ConfigError) as refused:
        ServiceUnit(executable=Path("/opt/my tools/ordergate"))
    assert refused.value.key == "/opt/my tools/ordergate"


def test_no_installed_command_is_refused_naming_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as refused:
        installed_executable(tmp_path)
    assert refused.value.key == "ordergate"
    assert str(tmp_path) in refused.value.reason


@pytest.mark.parametrize(
    ("first_line", "hidden"),
    [
        (b"#!/usr/bin/python3\n", False),
        (b"#!/usr/bin/env python3\n", False),
        (b"#!/root/.pyenv/versions/3.11.7/bin/python3\n", True),
        (b"#!/home/someone/venv/bin/python\n", True),
        (b"not a script\n", False),
        (b"#!\n", False),
    ],
)
def test_an_interpreter_protect_home_would_hide_is_noticed(
    tmp_path: Path, first_line: bytes, hidden: bool
) -> None:
    script = tmp_path / "ordergate"
    script.write_bytes(first_line + b"print()\n")
    assert ServiceUnit(executable=script).hidden_executable is hidden


def test_an_executable_in_a_home_folder_or_unreadable_is_judged_by_its_path() -> None:
    assert ServiceUnit(executable=Path("/home/someone/bin/ordergate")).hidden_executable
    assert not ServiceUnit(executable=Path("/opt/missing/ordergate")).hidden_executable
