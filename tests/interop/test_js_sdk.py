"""Interop: the official JavaScript client (@a2a-js/sdk 1.x, in its default v1.0 mode) over
JSON-RPC and over HTTP+JSON, against our dev server.

`scripts/interop-js.sh` installs the pinned SDK into tests/interop/js/node_modules. This module
starts one dev server (`tests.interop.agents:app` on SQLite) per binding, runs
tests/interop/js/client.mjs once with node, and checks each feature's observations in its own
test. The script builds its client from our agent card (`ClientFactory.createFromUrl`) with the
binding as its preferred transport; the factory takes the card's v1.0 interface for it.

If node or the SDK is missing, every test here FAILS (never skips: CI treats a missing tool as
a failure) and says to run scripts/interop-js.sh.

How the JS view reads: states and roles are protobuf enum names (TASK_STATE_COMPLETED,
ROLE_USER), stream items are `StreamResponse` oneofs (task, statusUpdate, artifactUpdate,
message) and a stream simply ends after the terminal status (v1.0 has no `final` flag).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.interop.client_runs import V10_METHODS, V10_REST_ROUTES, ClientRun, route_of
from tests.support.server import LiveServer, start_live_server

pytestmark = pytest.mark.interop

JS_DIR = Path(__file__).with_name("js")
SCRIPT = JS_DIR / "client.mjs"
SDK_PACKAGE = JS_DIR / "node_modules" / "@a2a-js" / "sdk" / "package.json"
INTEROP_APP = "tests.interop.agents:app"
SETUP_HINT = "run scripts/interop-js.sh to install @a2a-js/sdk into tests/interop/js"
WEBHOOK = "http://127.0.0.1:9/a2a-webhook"

CARD_PATH = "/.well-known/agent-card.json"


@dataclass
class JsRun(ClientRun):
    client: str = "@a2a-js/sdk"
    trace_key: str = "stack"
    binding: str = "JSONRPC"
    url: str = ""


@pytest.fixture(scope="module", params=["JSONRPC", "HTTP+JSON"])
def js(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[JsRun]:
    run = JsRun(binding=request.param)
    node = shutil.which("node")
    if node is None or not SDK_PACKAGE.exists():
        missing = "node is not on PATH" if node is None else f"{SDK_PACKAGE} is missing"
        run.problem = f"{missing}: {SETUP_HINT}"
        yield run
        return
    store = tmp_path_factory.mktemp("js-sdk")
    server: LiveServer | None = None
    try:
        server = start_live_server(
            INTEROP_APP, {"A2A_STORE_URL": f"sqlite:///{store / 'interop.db'}"}
        )
        run.url = server.url
        process = subprocess.run(
            [node, str(SCRIPT), server.url, run.binding],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=JS_DIR,
        )
    finally:
        if server is not None:
            server.stop()
            run.logs = f"--- dev server log {server.url} ---\n{server.log()}"
    run.read(process, "client.mjs")
    yield run


def test_the_client_is_a2a_js_sdk_1x(js: JsRun) -> None:
    if js.problem:
        pytest.fail(js.problem, pytrace=False)
    assert js.results["sdkVersion"].startswith("1.")


def test_client_takes_the_v10_interface_of_its_binding(js: JsRun) -> None:
    card = js.feature("card")
    assert card["name"] == "Interop Agent"
    assert card["clientProtocolVersion"] == "1.0"
    assert card["interfaces"] == [
        {"url": f"{js.url}/", "binding": "JSONRPC", "version": "1.0"},
        {"url": js.url, "binding": "HTTP+JSON", "version": "1.0"},
        {"url": f"{js.url}/", "binding": "JSONRPC", "version": "0.3"},
        {"url": js.url, "binding": "HTTP+JSON", "version": "0.3"},
    ]


def test_wire_is_v10_on_the_chosen_binding(js: JsRun) -> None:
    if js.problem:
        pytest.fail(js.problem, pytrace=False)
    calls = [c for c in js.results["wire"] if c["path"] != CARD_PATH]
    assert {c["a2aVersion"] for c in calls} == {"1.0"}
    if js.binding == "JSONRPC":
        assert {(c["http"], c["path"]) for c in calls} == {("POST", "/")}
        assert {c["rpcMethod"] for c in calls} == V10_METHODS
    else:
        assert {(c["http"], route_of(c["path"])) for c in calls} == V10_REST_ROUTES
        assert {c["rpcMethod"] for c in calls} == {None}


def test_send_blocking_returns_the_completed_task(js: JsRun) -> None:
    task = js.feature("send")
    assert task["state"] == "TASK_STATE_COMPLETED"
    assert task["artifacts"] == ["echo: hello from js"]
    assert task["history"] == [{"role": "ROLE_USER", "text": "hello from js"}]


def test_stream_task_first_then_updates_until_completed(js: JsRun) -> None:
    events = js.feature("stream")["events"]
    assert events[0]["kind"] == "task"
    assert events[0]["state"] == "TASK_STATE_SUBMITTED"
    assert all(e["kind"] != "task" for e in events[1:])
    assert {"kind": "statusUpdate", "state": "TASK_STATE_WORKING"} in events
    artifacts = [e["text"] for e in events if e["kind"] == "artifactUpdate"]
    assert artifacts == ["echo: stream me"]
    assert events[-1] == {"kind": "statusUpdate", "state": "TASK_STATE_COMPLETED"}


def test_get_task_and_history_length_zero(js: JsRun) -> None:
    result = js.feature("get")
    assert result["task"]["id"] == result["sentId"]
    assert result["task"]["state"] == "TASK_STATE_COMPLETED"
    assert result["task"]["artifacts"] == ["echo: get me"]
    assert result["historyWhenZero"] == 0


def test_list_tasks_by_context_newest_first(js: JsRun) -> None:
    result = js.feature("list")
    assert result["listedIds"] == list(reversed(result["sentIds"]))
    assert sorted(result["completedInContext"]) == sorted(result["sentIds"])
    assert result["totalSize"] == 2
    assert result["pageSize"] == 10
    assert result["nextPageToken"] == ""


def test_cancel_a_running_task(js: JsRun) -> None:
    result = js.feature("cancel")
    assert result["startedState"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
    assert result["canceled"]["state"] == "TASK_STATE_CANCELED"


def test_subscribe_starts_with_the_task_and_ends_completed(js: JsRun) -> None:
    events = js.feature("subscribe")["events"]
    assert events[0]["kind"] == "task"
    assert events[-1] == {"kind": "statusUpdate", "state": "TASK_STATE_COMPLETED"}
    chunks = [e for e in events if e["kind"] == "artifactUpdate"]
    # The snapshot may already hold the first chunks; whatever follows ends the artifact.
    assert chunks and chunks[-1]["lastChunk"] is True
    assert all(c["text"].startswith("chunk ") for c in chunks)


def test_push_notification_config_crud(js: JsRun) -> None:
    result = js.feature("pushConfigs")
    assert result["created"]["url"] == WEBHOOK
    assert result["created"]["token"] == "js-token"
    assert result["created"]["hasId"] is True
    assert result["got"] == {"url": WEBHOOK, "id": True}
    assert result["listed"] == [WEBHOOK]
    assert result["afterDelete"] == 0


def test_unknown_task_is_the_sdks_task_not_found_error(js: JsRun) -> None:
    raised = js.feature("unknownTask")["raised"]
    prefix = "JsonRpc" if js.binding == "JSONRPC" else "Rest"
    assert raised["name"] == f"{prefix}TaskNotFoundError"
