"""The OpenAPI document is data (a2a_serverless/rest/openapi.json), written by
scripts/openapi_gen.py: it must be current, the server must fill in every deployment limit, and
wheels (hence the Lambda zip, built from them) must carry it. It lists every HTTP+JSON route of
both versions the app serves, no other, each with the verbs and query parameters served
(v03/rest.py's and v10/rest.py's route tables); 1.0's ask for `A2A-Version` and name 1.0's
states and roles (tests/reliability/test_rest_schemathesis.py fuzzes both against it)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from a2a_serverless import routepaths
from a2a_serverless.config import Settings
from a2a_serverless.rest import openapi
from a2a_serverless.v03 import rest as v03_rest
from a2a_serverless.v10 import models as v10_models
from a2a_serverless.v10 import rest as v10_rest

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "scripts" / "openapi_gen.py"


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("openapi_gen", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_shipped_document_is_current() -> None:
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    "settings",
    [
        Settings(),
        Settings(max_message_parts=7, max_file_bytes=1234, max_message_file_bytes=98_765),
        Settings(max_message_parts=1, max_file_bytes=0, max_message_file_bytes=0),
    ],
    ids=["defaults", "custom", "smallest"],
)
def test_the_served_document_is_the_generated_one(
    generator: ModuleType, settings: Settings
) -> None:
    served = openapi.document(settings)
    assert served == generator.build(generator.Limits.of(settings))
    assert "{{" not in json.dumps(served)


def test_a_wheel_carries_the_document(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("a2a_serverless-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert "a2a_serverless/rest/openapi.json" in archive.namelist()
        archive.extractall(tmp_path / "site")
    # Served from the unpacked wheel, with no checkout on the path.
    code = (
        "import json, a2a_serverless.rest.openapi as o\n"
        "from a2a_serverless.config import Settings\n"
        f"assert o.__file__.startswith({str(tmp_path)!r}), o.__file__\n"
        "print(json.dumps(o.document(Settings())))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tmp_path / "site")
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == openapi.document(Settings())


# --- the document against the routes served -----------------------------------------------------


def _filled(template: str) -> tuple[str, dict[str, str]]:
    """A path of `template` with a value for each of its fields, and those values."""
    fields = re.findall(r"\{([^}]+)\}", template)
    values = {name: f"the-{name}" for name in fields}
    path = template
    for name, value in values.items():
        path = path.replace("{" + name + "}", value)
    return path, values


VERSIONS = {
    # version: (does a document path belong to it, the path's route, its route table)
    "0.3": (routepaths.is_rest_path, routepaths.v03_route, v03_rest.ROUTES),
    "1.0": (lambda path: not routepaths.is_rest_path(path), routepaths.v10_route, v10_rest.ROUTES),
}


@pytest.mark.parametrize("version", list(VERSIONS))
def test_the_document_lists_every_route_served_with_its_verbs_and_query(version: str) -> None:
    belongs, route_of, routes = VERSIONS[version]
    document = openapi.document(Settings())
    listed: dict[str, set[str]] = {}
    for template, operations in document["paths"].items():
        if template == routepaths.OPENAPI_PATH or not belongs(template):
            continue
        path, values = _filled(template)
        route = route_of(path)
        assert route is not None, template
        assert route.params == values, template
        assert route.name not in listed, f"{route.name} listed twice"
        listed[route.name] = {verb.upper() for verb in operations}
        for verb, operation in operations.items():
            served = routes[route.name][verb.upper()]
            query = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
            names = {entry if isinstance(entry, str) else entry[0] for entry in served.query}
            assert query == names, f"{verb.upper()} {template}"
    assert listed == {name: set(verbs) for name, verbs in routes.items()}


def test_the_v10_routes_say_their_version_and_speak_protojson() -> None:
    document = openapi.document(Settings())
    states = set(v10_models.STATES.values())
    for template, operations in document["paths"].items():
        if routepaths.is_rest_path(template):
            continue
        for operation in operations.values():
            headers = [p for p in operation["parameters"] if p["in"] == "header"]
            assert [(h["name"], h["required"]) for h in headers] == [("A2A-Version", True)]
    schemas = document["components"]["schemas"]
    assert set(schemas["v10.TaskStatus"]["properties"]["state"]["enum"]) == states
    assert set(schemas["v10.Message"]["properties"]["role"]["enum"]) == set(
        v10_models.ROLES.values()
    )
    request = schemas["v10.request.Message"]
    assert {"messageId", "contextId", "taskId", "referenceTaskIds"} <= set(request["properties"])


def test_each_v10_path_template_names_its_route() -> None:
    assert set(routepaths.V10_PATHS) == set(v10_rest.ROUTES)
    for name, template in routepaths.V10_PATHS.items():
        path, values = _filled(template)
        assert routepaths.v10_route(path) == routepaths.Route(name, values), template
        tenant = routepaths.v10_route("/acme" + path)
        assert tenant == routepaths.Route(name, values, "acme"), template
