"""Schemathesis against both HTTP+JSON transports (A2A 0.3's under /v1/, A2A 1.0's), in-process,
driven by the OpenAPI document the app serves at GET /v1/openapi.json (rest/openapi.py).

For every operation schemathesis sends requests the document calls valid ("positive") and ones
it calls invalid ("negative"), and checks every answer: no 5xx, the status is one the operation
documents, the content type and body (JSON, or each SSE event) match the documented response,
schema-valid requests are accepted and schema-invalid ones refused with a 4xx, a verb the route
lacks gets 405 with an `Allow` header. No check is switched off, and no error may be logged.

Where acceptance depends on state or on the deployment rather than on the request's shape (the
document says so in words), the test makes each positive request one the server can accept:

- task ids: it names one of a few real tasks (a random id is a 404, which schemathesis accepts
  too, and negative requests still send random ones);
- resource names in bodies (`name`, `parent`): they name that task;
- webhook URLs: they point at a receiver on 127.0.0.1 (dev mode lets it pass the SSRF guard),
  so deliveries happen too;
- `fileWithBytes`: the generated text, double base64-encoded as the a2a-sdk does;
- `pageToken`: a token as pages hand them out, signed with the deployment's key;
- `lastUpdatedAfter` and `lastUpdatedTime`, refused together, are not sent together;
- a GET of a push config finds one: the test sets it first (a config that does not exist is
  -32602, HTTP 400, as over JSON-RPC);
- 1.0: a path field repeated in the body (`id`, `taskId`) is the path's; a push config list's
  `pageToken` is one of that task's; a cancel or subscribe names a new task waiting for input
  (1.0 refuses both for a finished task, 400).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote, unquote

import jsonschema
import pytest
import schemathesis
from hypothesis import settings
from schemathesis.checks import positive_data_acceptance
from schemathesis.python import asgi as schemathesis_asgi

from a2a_serverless import Settings, create_app
from a2a_serverless.asgi import A2AApplication
from a2a_serverless.pagetoken import PageTokens, page_token_key
from a2a_serverless.rest import openapi
from tests.reliability.harness import FUZZ_SETTINGS, LogRecorder, fuzz_agent
from tests.support.hypothesis_profiles import PROFILE

# The test sets a config for every positive GET of one: far more than a task may have. A 1.0
# subscribe to a task waiting for input streams until the time budget ends: a short one.
SETTINGS = Settings(
    store_url="memory://",
    push_max_configs_per_task=100_000,
    **{**FUZZ_SETTINGS, "stream_timeout_s": 0.2},
)


class _Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass
class Api:
    """The app under test (a memory store: it runs on schemathesis' event loop thread), the
    webhook receiver its push configs point at, and the tasks positive requests name."""

    app: A2AApplication
    webhook: str
    task_ids: list[str] = field(default_factory=list)
    cases: dict[str, int] = field(default_factory=dict)
    logs: LogRecorder = field(default_factory=LogRecorder)

    def client(self) -> Any:
        """A requests-like client of the app, on schemathesis' event loop."""
        return schemathesis_asgi.get_client(current_app)


# The running Api, while the fixture is up.
CURRENT: list[Api] = []


async def current_app(scope: Any, receive: Any, send: Any) -> None:
    """What schemathesis calls: the app of the running Api. (The schema is loaded at import,
    so it cannot hold the app itself, which only the fixture starts.)"""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await CURRENT[-1].app(scope, receive, send)


@pytest.fixture(scope="module")
def api() -> Iterator[Api]:
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    app = create_app(fuzz_agent, SETTINGS, push_notifications=True)
    api = Api(app, f"http://127.0.0.1:{receiver.server_address[1]}/hook")
    CURRENT.append(api)
    logger = logging.getLogger("a2a_serverless")
    logger.addHandler(api.logs)
    client = api.client()
    for text in ("hello", "ask", "ask again"):
        message = {"messageId": f"seed-{text}", "role": "ROLE_USER", "content": [{"text": text}]}
        body = {"message": message, "configuration": {"blocking": True}}
        response = client.post("http://testserver/v1/message:send", json=body)
        assert response.status_code == 200, response.text
        api.task_ids.append(response.json()["task"]["id"])
    yield api
    CURRENT.remove(api)
    logger.removeHandler(api.logs)
    receiver.shutdown()
    receiver.server_close()


# The document the app serves with these settings (the last test checks it is); the routes of
# each version, each fuzzed by its own test.
schema = schemathesis.openapi.from_dict(openapi.document(SETTINGS))
schema.app = current_app
V03_ROUTES = r"^/v1/"
v03_schema = schema.include(path_regex=V03_ROUTES)
v10_schema = schema.exclude(path_regex=V03_ROUTES)


# --- making a positive request acceptable ------------------------------------------------------


def _pick(items: list[str], seed: Any) -> str:
    digest = hashlib.sha256(repr(seed).encode()).digest()
    return items[digest[0] % len(items)]


def _acceptable_body(value: Any, api: Api) -> Any:
    """Webhook URLs at our receiver; proto bytes double base64-encoded (see the docstring)."""
    if isinstance(value, list):
        return [_acceptable_body(item, api) for item in value]
    if not isinstance(value, dict):
        return value
    fixed = {key: _acceptable_body(item, api) for key, item in value.items()}
    for key, item in fixed.items():
        if key == "url" and isinstance(item, str):
            fixed[key] = api.webhook
        elif key in ("fileWithBytes", "file_with_bytes") and isinstance(item, str):
            inner = base64.b64encode(item.encode("utf-8", "replace"))
            fixed[key] = base64.b64encode(inner).decode()
    return fixed


def _page_token(seed: Any) -> str:
    """A token as this deployment's pages hand them out (signed with its key)."""
    position = int.from_bytes(hashlib.sha256(repr(seed).encode()).digest()[:7])
    task_id = str(seed)[:20].encode("utf-8", "replace").hex() or "t"
    return PageTokens(page_token_key(SETTINGS)).encode(position, task_id)


def _put_push_config(api: Api, task_id: str, config_id: str) -> None:
    """The config a positive GET .../pushNotificationConfigs/{configId} asks for."""
    # A URL of its own: a task takes one config per URL (another is a 409 conflict).
    url = f"{api.webhook}/{quote(config_id, safe='')}"
    body: dict[str, Any] = {"pushNotificationConfig": {"id": config_id, "url": url}}
    response = api.client().post(
        f"http://testserver/v1/tasks/{quote(task_id, safe='')}/pushNotificationConfigs", json=body
    )
    assert response.status_code == 200, response.text


def _name_the_task(body: Any, task_id: str) -> None:
    """A body's resource names (`name`, `parent`, `config.name`) name the task of the URL; a
    push config's name keeps its config id."""
    holders = [body, body.get("config")] if isinstance(body, dict) else []
    for holder in holders:
        if not isinstance(holder, dict):
            continue
        for key in ("name", "parent"):
            value = holder.get(key)
            if isinstance(value, str) and value:
                holder[key] = "/".join(["tasks", task_id, *value.split("/")[2:]])


def make_acceptable(case: schemathesis.Case[Any], api: Api) -> None:
    if "id" in case.path_parameters:
        case.path_parameters["id"] = _pick(api.task_ids, case.path_parameters["id"])
    if isinstance(case.body, dict | list):
        case.body = _acceptable_body(case.body, api)
        if "id" in case.path_parameters:
            _name_the_task(case.body, case.path_parameters["id"])
    query = case.query or {}
    if "pageToken" in query:
        query["pageToken"] = _page_token(query["pageToken"])
    if "lastUpdatedAfter" in query:
        query.pop("lastUpdatedTime", None)
    if "configId" in case.path_parameters:
        # Schemathesis holds path values URL-encoded already.
        config_id = unquote(str(case.path_parameters["configId"]))
        _put_push_config(api, case.path_parameters["id"], config_id)


# --- the tests ------------------------------------------------------------------------------------


@v03_schema.parametrize()
@settings(max_examples=PROFILE.schemathesis_examples)
def test_rest_transport_against_its_openapi_document(
    case: schemathesis.Case[Any], api: Api
) -> None:
    if case.meta is not None and case.meta.generation.mode.is_positive:
        make_acceptable(case, api)
    api.cases[case.operation.label] = api.cases.get(case.operation.label, 0) + 1
    case.call_and_validate()
    errors = api.logs.errors()
    assert errors == [], "\n".join(errors)


# --- A2A 1.0's routes ---------------------------------------------------------------------------


def _v10_page_token(seed: Any, task_id: str) -> str:
    """A push config list's token, as its pages hand them out: for that task."""
    position = int.from_bytes(hashlib.sha256(repr(seed).encode()).digest()[:2])
    return PageTokens(page_token_key(SETTINGS)).encode(position, task_id)


def _put_v10_push_config(api: Api, task_id: str, config_id: str) -> None:
    """The config a positive GET or DELETE .../pushNotificationConfigs/{id} names."""
    url = f"{api.webhook}/{quote(config_id, safe='')}"
    response = api.client().post(
        f"http://testserver/tasks/{quote(task_id, safe='')}/pushNotificationConfigs",
        json={"id": config_id, "url": url},
        headers={"A2A-Version": "1.0"},
    )
    assert response.status_code == 200, response.text


def _waiting_task(api: Api) -> str:
    """A new task waiting for input: one a cancel or a subscribe (which 1.0 refuses for a
    finished task) can take."""
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": "ask"}]}
    response = api.client().post(
        "http://testserver/message:send", json={"message": message}, headers={"A2A-Version": "1.0"}
    )
    assert response.status_code == 200, response.text
    task = response.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", task
    return str(task["id"])


def make_v10_acceptable(case: schemathesis.Case[Any], api: Api) -> None:
    path = case.path_parameters
    push_route = "/pushNotificationConfigs" in case.operation.path
    task_field = "taskId" if push_route else "id"
    if case.operation.path in ("/tasks/{id}:cancel", "/tasks/{id}:subscribe"):
        path["id"] = _waiting_task(api)
    elif task_field in path:
        path[task_field] = _pick(api.task_ids, path[task_field])
    if isinstance(case.body, dict | list):
        case.body = _acceptable_body(case.body, api)
    if isinstance(case.body, dict):
        for name, value in path.items():
            if case.body.get(name) not in (None, ""):
                case.body[name] = unquote(str(value))
    query = case.query or {}
    if "pageToken" in query:
        if push_route:
            query["pageToken"] = _v10_page_token(query["pageToken"], path["taskId"])
        else:
            query["pageToken"] = _page_token(query["pageToken"])
    if push_route and "id" in path:
        _put_v10_push_config(api, path["taskId"], unquote(str(path["id"])))


# 1.0 answers GetExtendedAgentCard of an agent that declares no extended card with 400 (the
# spec's table: UnsupportedOperation) whatever the request's shape. The fuzz agent declares
# none, so that 400 is the deployment speaking: a schema-valid request refused so is no failure
# when the error's reason says exactly that.
DEPLOYMENT_REFUSALS = {"GET /extendedAgentCard": "UNSUPPORTED_OPERATION"}


def _refused_by_the_deployment(case: schemathesis.Case[Any], response: Any) -> bool:
    reason = DEPLOYMENT_REFUSALS.get(case.operation.label)
    if reason is None or response.status_code != 400:
        return False
    details = response.json()["error"]["details"]
    return any(detail.get("reason") == reason for detail in details)


@v10_schema.parametrize()
@settings(max_examples=PROFILE.schemathesis_examples)
def test_v10_rest_transport_against_its_openapi_document(
    case: schemathesis.Case[Any], api: Api
) -> None:
    if case.meta is not None and case.meta.generation.mode.is_positive:
        make_v10_acceptable(case, api)
    api.cases[case.operation.label] = api.cases.get(case.operation.label, 0) + 1
    response = case.call()
    if _refused_by_the_deployment(case, response):
        case.validate_response(response, excluded_checks=[positive_data_acceptance])
    else:
        case.validate_response(response)
    errors = api.logs.errors()
    assert errors == [], "\n".join(errors)


def _body_schema(path: str) -> Any:
    """The JSON Schema of an operation's request body, its `$ref`s resolvable."""
    document = schema.raw_schema
    body = document["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    return jsonschema.Draft202012Validator({**body, "components": document["components"]})


# A resource name in a body: the server takes the URL's task (or none), and refuses anything else;
# the document must call exactly the same bodies valid (schemathesis ST202 found a `name` that
# was a list of numbers, "valid" by the document and refused by the server).
NAMES = [
    ({"name": "tasks/{id}"}, 200),
    ({"name": ""}, 200),
    ({"name": None}, 200),
    ({"name": [1, 2]}, 400),
    ({"name": 7}, 400),
    ({"name": "tasks/"}, 400),
    ({"name": "tasks/{id}/x"}, 400),
    ({"name": "{id}"}, 400),
]


@pytest.mark.parametrize(("body", "status"), NAMES)
@pytest.mark.parametrize("route", [":cancel", ":subscribe"])
def test_a_name_in_a_cancel_or_subscribe_body(
    api: Api, route: str, body: dict[str, Any], status: int
) -> None:
    task_id = api.task_ids[0]
    sent = json.loads(json.dumps(body).replace("{id}", task_id))
    assert _body_schema(f"/v1/tasks/{{id}}{route}").is_valid(sent) is (status == 200)
    response = api.client().post(f"http://testserver/v1/tasks/{task_id}{route}", json=sent)
    # Our seeded tasks are finished: a cancel that gets past the name is refused as 409.
    expected = 409 if (status == 200 and route == ":cancel") else status
    assert response.status_code == expected, response.text


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"name": "tasks/{id}"}, 200),
        ({"name": "tasks/{id}/pushNotificationConfigs/c1"}, 200),
        ({"name": None}, 200),
        ({"name": ["tasks/{id}"]}, 400),
        ({"name": "tasks/{id}/pushNotificationConfigs/"}, 400),
        ({"name": "tasks/{id}/other/c1"}, 400),
    ],
)
def test_a_name_in_a_push_config_body(api: Api, body: dict[str, Any], status: int) -> None:
    task_id = api.task_ids[0]
    config = {"pushNotificationConfig": {"url": api.webhook}}
    sent = json.loads(json.dumps({**body, **config}).replace("{id}", task_id))
    path = "/v1/tasks/{id}/pushNotificationConfigs"
    assert _body_schema(path).is_valid(sent) is (status == 200)
    response = api.client().post(f"http://testserver{path.replace('{id}', task_id)}", json=sent)
    assert response.status_code == status, response.text


@pytest.mark.parametrize(
    ("parent", "status"), [("tasks/{id}", 200), ("", 200), (None, 200), (3, 400), ("x/y", 400)]
)
def test_a_parent_in_the_sdk_push_config_body(api: Api, parent: Any, status: int) -> None:
    task_id = api.task_ids[0]
    body = {"parent": parent, "config": {"pushNotificationConfig": {"url": api.webhook}}}
    sent = json.loads(json.dumps(body).replace("{id}", task_id))
    path = "/v1/tasks/{id}/pushNotificationConfigs"
    assert _body_schema(path).is_valid(sent) is (status == 200)
    response = api.client().post(f"http://testserver{path.replace('{id}', task_id)}", json=sent)
    assert response.status_code == status, response.text


def test_the_served_document_is_the_one_tested(api: Api) -> None:
    """The document is served publicly (no credentials) and is the one the fuzzing used."""
    served = api.client().get("http://testserver/v1/openapi.json")
    assert served.status_code == 200
    assert served.headers["content-type"] == "application/json"
    assert served.json() == schema.raw_schema
    if api.cases:
        total = sum(api.cases.values())
        print(f"\nschemathesis: {total} cases; per operation: {json.dumps(api.cases, indent=1)}")
