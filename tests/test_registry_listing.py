"""Found where people look: the MCP Registry's server.json, the README line the registry checks,
and the README's host table, which must list every registered host truthfully."""

from __future__ import annotations

import json
import re
import tomllib
from importlib import metadata
from pathlib import Path

import jsonschema
import pytest

from engram import __version__
from engram.hosts.base import McpHost
from engram.hosts.registry import all_hosts

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "schemas" / "mcp-registry" / "server.schema.json"


def server_json() -> dict[str, object]:
    value = json.loads((REPO / "server.json").read_text())
    assert isinstance(value, dict)
    return value


def test_server_json_is_valid_against_the_registrys_published_schema() -> None:
    schema = json.loads(SCHEMA.read_text())
    listing = server_json()
    assert listing["$schema"] == schema["$id"]  # the schema version we validate against
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()).validate(listing)


def test_the_schema_catches_a_broken_listing() -> None:
    # The validation above can fail: a name without a namespace and a version range are refused.
    schema = json.loads(SCHEMA.read_text())
    broken = {**server_json(), "name": "engram"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_server_json_names_this_release_and_the_readme_carries_its_mcp_name() -> None:
    listing = server_json()
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    (package,) = listing["packages"]  # type: ignore[misc]
    assert listing["version"] == package["version"] == project["version"] == __version__
    assert package["identifier"] == project["name"] and package["registryType"] == "pypi"
    # The registry proves PyPI ownership by finding this line in the package's README.
    assert f"mcp-name: {listing['name']}" in (REPO / "README.md").read_text()


def test_the_registry_runtime_starts_the_server_by_the_distributions_name() -> None:
    # `uvx engram-keeper` runs the console script named like the distribution.
    scripts = {ep.name: ep.value for ep in metadata.entry_points(group="console_scripts")}
    assert scripts["engram-keeper"] == scripts["engram-mcp"] == "engram.server.main:main"


def readme_rows() -> dict[str, list[str]]:
    """README's host table: host name -> its cells."""
    text = (REPO / "README.md").read_text()
    section = text.split("## Hosts", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        found = re.match(r"\| [^|]+ \(`([a-z-]+)`\) \|", line)
        if found:
            rows[found.group(1)] = [cell.strip() for cell in line.strip("|").split("|")]
    return rows


E2E = " ".join(
    (REPO / "tests" / "e2e" / f).read_text() for f in ("test_host_clis.py", "test_cli_hosts.py")
)


@pytest.mark.parametrize("name", list(all_hosts()))
def test_the_readme_table_says_what_each_host_is(name: str) -> None:
    host = all_hosts()[name]
    row = readme_rows().get(name)
    assert row is not None, f"README's host table has no row for {name}"
    title, scopes, writes, hooks, verified = row
    assert title == f"{host.title} (`{name}`)"
    assert scopes == ", ".join(scope.value for scope in host.scopes)
    files = getattr(host, "files", {})
    assert hooks == ("yes" if any(f.hooks for f in files.values()) else "no")
    if isinstance(host, McpHost):
        for target in host.mcp.values():
            assert Path(target.candidates[0].relpath).name in writes, (name, writes)
    asked = f'"{name}"' in E2E  # an end-to-end test runs this host's own CLI
    assert verified.startswith("yes") == asked, (name, verified)


def test_the_table_has_no_host_that_is_not_registered() -> None:
    assert set(readme_rows()) == set(all_hosts())
