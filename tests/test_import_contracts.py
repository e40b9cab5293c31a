"""The boundaries between packages are checked by import-linter (``[tool.importlinter]`` in
pyproject.toml, run by ``scripts/test``): the layers, no package importing another
package's underscore module, and the chokepoint reaching venues through the port only. These
tests pin that the contracts hold on the source and that each one breaks on the import it
forbids."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grimp
import pytest
from importlinter.api import read_configuration
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.layers import LayersContract
from importlinter.contracts.private_modules import PrivateModulesContract

PYPROJECT = Path(__file__).parent.parent / "pyproject.toml"
KINDS: dict[str, type[LayersContract] | type[PrivateModulesContract] | type[ForbiddenContract]] = {
    "layers": LayersContract,
    "private_modules": PrivateModulesContract,
    "forbidden": ForbiddenContract,
}

pytestmark = pytest.mark.req("store.import-contracts")


@pytest.fixture(scope="module")
def contracts() -> dict[str, Any]:
    configuration = read_configuration(str(PYPROJECT))
    found = {}
    for options in configuration["contracts_options"]:
        kind = KINDS[options["type"]]
        found[options["id"]] = kind(options["name"], configuration["session_options"], options)
    assert set(found) == {"layers", "private", "port"}
    return found


@pytest.fixture
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("ordergate")


def test_the_source_keeps_every_import_contract(
    contracts: dict[str, Any], graph: grimp.ImportGraph
) -> None:
    for contract in contracts.values():
        assert contract.check(graph, verbose=False).kept, contract.name


def test_a_lower_layer_importing_a_higher_one_breaks_the_layers(
    contracts: dict[str, Any], graph: grimp.ImportGraph
) -> None:
    graph.add_import(importer="ordergate.store._engine", imported="ordergate.ledger")
    assert not contracts["layers"].check(graph, verbose=False).kept


def test_importing_another_packages_underscore_module_breaks_the_private_contract(
    contracts: dict[str, Any], graph: grimp.ImportGraph
) -> None:
    graph.add_import(importer="ordergate.gateway.desk._desk", imported="ordergate.ledger._schema")
    assert not contracts["private"].check(graph, verbose=False).kept


def test_a_package_shares_its_underscore_modules_within_itself(
    contracts: dict[str, Any], graph: grimp.ImportGraph
) -> None:
    graph.add_import(importer="ordergate.gateway.desk._desk", imported="ordergate.gateway._schema")
    assert contracts["private"].check(graph, verbose=False).kept


def test_the_guard_importing_a_concrete_venue_breaks_the_port_contract(
    contracts: dict[str, Any], graph: grimp.ImportGraph
) -> None:
    graph.add_import(importer="ordergate.execution._guard", imported="ordergate.venues.robinhood")
    assert not contracts["port"].check(graph, verbose=False).kept


def test_the_guard_importing_the_client_breaks_the_port_contract(
    contracts: dict[str, Any], graph: grimp.ImportGraph
) -> None:
    graph.add_import(importer="ordergate.execution._guard", imported="ordergate.client")
    assert not contracts["port"].check(graph, verbose=False).kept


def test_the_guard_importing_the_port_keeps_the_port_contract(
    contracts: dict[str, Any], graph: grimp.ImportGraph
) -> None:
    graph.add_import(importer="ordergate.execution._guard", imported="ordergate.venues")
    assert contracts["port"].check(graph, verbose=False).kept
