"""Interop: the official a2a-sdk 1.x client, in its default v1.0 mode (JSON-RPC), in v1.0 over
HTTP+JSON and in its v0.3 mode, against our dev server.

a2a-sdk 1.x cannot be installed next to the 0.3.26 of .venv, so it lives in .venv-a2a-sdk1
(`scripts/interop-venv.sh`). This module starts two dev servers (the example trip planner and
`tests.interop.agents:app`), runs `tests/interop/sdk1_client.py` once with that venv's python,
and checks each feature's observations in its own test, once per mode (the `sdk1` fixture is
parametrized: "1.0", the client's default, "1.0-rest" and "0.3"). How 1.x selects its mode is
described in sdk1_client.py: left alone it takes our card's v1.0 JSON-RPC interface; configured
for HTTP+JSON only it takes the v1.0 HTTP+JSON interface (its `RestTransport`); pinned to the
card's 0.3 interfaces it uses its `CompatJsonRpcTransport`.

The servers are started with `start_live_server`, the helper behind the `live_server` fixture,
because they must outlive one test: the script runs once for the whole module.

If .venv-a2a-sdk1 is missing, every test here FAILS (never skips: CI treats a missing tool as a
failure) and says to run scripts/interop-venv.sh.

Differences of the 1.x view worth knowing when reading the asserts: 1.x has no `final` flag on
status updates (the stream simply ends), states are protobuf names (TASK_STATE_COMPLETED), and
its v0.3 JSON-RPC transport has no tasks/list (see test_list_tasks). The features and their
asserts are the same in both modes, except what goes over the wire (method names, header) and
listing.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.interop.client_runs import V10_METHODS, V10_REST_ROUTES, ClientRun, route_of
from tests.support.server import LiveServer, start_live_server

pytestmark = pytest.mark.interop

REPO = Path(__file__).resolve().parents[2]
SDK1_VENV = REPO / ".venv-a2a-sdk1"
SDK1_PYTHON = SDK1_VENV / "bin" / "python"
SCRIPT = Path(__file__).with_name("sdk1_client.py")
INTEROP_APP = "tests.interop.agents:app"
SETUP_HINT = "run scripts/interop-venv.sh to create .venv-a2a-sdk1 with a2a-sdk 1.x"
WEBHOOK = "http://127.0.0.1:9/a2a-webhook"

LISBON_3_DAYS = (
    "Day 1: the old town on foot in Lisbon.\n"
    "Day 2: the main museum in Lisbon.\n"
    "Day 3: a food market in Lisbon.\n"
)
V03_METHODS = {
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/list",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
}


@dataclass
class Sdk1Run(ClientRun):
    client: str = "a2a-sdk 1.x"
    trace_key: str = "traceback"
    protocol: str = "1.0"
    example_url: str = ""
    interop_url: str = ""


def _sdk1_version() -> str | None:
    if not SDK1_PYTHON.exists():
        return None
    probe = subprocess.run(
        [
            str(SDK1_PYTHON),
            "-c",
            "from importlib.metadata import version; print(version('a2a-sdk'))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return probe.stdout.strip() if probe.returncode == 0 else None


@pytest.fixture(scope="module", params=["1.0", "1.0-rest", "0.3"])
def sdk1(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Sdk1Run]:
    protocol: str = request.param
    version = _sdk1_version()
    if version is None or not version.startswith("1."):
        found = f"a2a-sdk {version}" if version else "no a2a-sdk"
        where = SDK1_PYTHON if SDK1_PYTHON.exists() else f"{SDK1_VENV} is missing;"
        yield Sdk1Run(problem=f"{where} {found} there: {SETUP_HINT}")
        return
    store = tmp_path_factory.mktemp("sdk1")
    servers: list[LiveServer] = []
    run = Sdk1Run(protocol=protocol)
    try:
        example = start_live_server(None, {"A2A_STORE_URL": f"sqlite:///{store / 'example.db'}"})
        servers.append(example)
        interop = start_live_server(
            INTEROP_APP, {"A2A_STORE_URL": f"sqlite:///{store / 'interop.db'}"}
        )
        servers.append(interop)
        run.example_url, run.interop_url = example.url, interop.url
        process = subprocess.run(
            [str(SDK1_PYTHON), str(SCRIPT), example.url, interop.url, protocol],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=REPO,
        )
    finally:
        for server in servers:
            server.stop()
        run.logs = "\n".join(f"--- dev server log {s.url} ---\n{s.log()}" for s in servers)
    run.read(process, "sdk1_client.py")
    yield run


# --- the tests -------------------------------------------------------------------------------


def test_the_client_is_a2a_sdk_1x(sdk1: Sdk1Run) -> None:
    if sdk1.problem:
        pytest.fail(sdk1.problem, pytrace=False)
    assert sdk1.results["sdk_version"].startswith("1.")


def test_card_lists_v10_then_v03_interfaces(sdk1: Sdk1Run) -> None:
    card = sdk1.feature("card")
    for label, url in (("example", sdk1.example_url), ("interop", sdk1.interop_url)):
        interfaces = card[label]["interfaces"]
        jsonrpc_v10 = {"url": f"{url}/", "binding": "JSONRPC", "version": "1.0"}
        rest_v10 = {"url": url, "binding": "HTTP+JSON", "version": "1.0"}
        jsonrpc_v03 = {"url": f"{url}/", "binding": "JSONRPC", "version": "0.3"}
        rest_v03 = {"url": url, "binding": "HTTP+JSON", "version": "0.3"}
        assert interfaces == [jsonrpc_v10, rest_v10, jsonrpc_v03, rest_v03], interfaces
        assert card[label]["streaming"] is True
    assert card["example"]["name"] == "Trip Planner"
    assert card["interop"]["push_notifications"] is True


def test_wire_carries_the_versions_method_names_and_header(sdk1: Sdk1Run) -> None:
    if sdk1.problem:
        pytest.fail(sdk1.problem, pytrace=False)
    calls = sdk1.results["wire"]
    posts = [c for c in calls if c["http"] == "POST"]
    if sdk1.protocol == "1.0-rest":
        card_path = "/.well-known/agent-card.json"
        routes = {
            (c["http"], route_of(c["path"], tenant="/acme"))
            for c in calls
            if c["path"] != card_path
        }
        assert routes == V10_REST_ROUTES
        assert {c["a2a_version"] for c in calls if c["path"] != card_path} == {"1.0"}
        assert {c["method"] for c in posts} == {None}  # no JSON-RPC at all
        return
    if sdk1.protocol == "1.0":
        assert {c["method"] for c in posts} == V10_METHODS
        assert {c["a2a_version"] for c in posts} == {"1.0"}
        return
    assert {c["method"] for c in posts} == V03_METHODS
    assert {c["a2a_version"] for c in posts} == {"0.3"}
    assert {c["path"] for c in calls if c["http"] == "GET"} == {"/.well-known/agent-card.json"}


def test_send_blocking_returns_the_completed_task(sdk1: Sdk1Run) -> None:
    task = sdk1.feature("send")
    assert task["state"] == "TASK_STATE_COMPLETED"
    assert task["artifacts"] == 1
    assert task["artifact_text"] == LISBON_3_DAYS
    assert task["history"][0] == {"role": "ROLE_USER", "text": ["Plan 3 days in Lisbon"]}


def test_direct_answer_is_a_message(sdk1: Sdk1Run) -> None:
    result = sdk1.feature("direct")
    expected = {
        "kind": "message",
        "role": "ROLE_AGENT",
        "text": ["direct: hello"],
        "task_id": "",
        "has_context": True,
    }
    assert result == {"send": [expected], "stream": [expected]}


def test_multi_turn_continues_the_same_task(sdk1: Sdk1Run) -> None:
    first, second, third = sdk1.feature("multi_turn")["turns"]
    assert first["state"] == second["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert first["status_text"] == ["Where would you like to go?"]
    assert second["status_text"] == ["Lisbon it is! How many days will you stay?"]
    assert third["state"] == "TASK_STATE_COMPLETED"
    assert third["artifact_text"] == LISBON_3_DAYS
    assert first["id"] == second["id"] == third["id"]
    assert first["context_id"] == second["context_id"] == third["context_id"]
    said = [m["text"] for m in third["history"] if m["role"] == "ROLE_USER"]
    assert said == [["I would like a city break"], ["Lisbon"], ["3"]]


def test_stream_task_first_then_updates_completed_last(sdk1: Sdk1Run) -> None:
    result = sdk1.feature("stream")
    events = result["events"]
    assert events[0]["kind"] == "task"
    assert events[0]["state"] == "TASK_STATE_SUBMITTED"
    assert events[-1] == {
        "kind": "status_update",
        "task_id": events[0]["id"],
        "context_id": events[0]["context_id"],
        "state": "TASK_STATE_COMPLETED",
    }
    assert all(e["kind"] != "task" for e in events[1:])
    middle = [e["state"] for e in events[1:-1] if e["kind"] == "status_update"]
    assert middle and set(middle) == {"TASK_STATE_WORKING"}
    chunks = [e for e in events if e["kind"] == "artifact_update"]
    assert len({c["artifact_id"] for c in chunks}) == 1
    assert [c["append"] for c in chunks] == [False] + [True] * (len(chunks) - 1)
    assert chunks[-1]["last_chunk"] is True
    assert "".join(c["text"] for c in chunks) == LISBON_3_DAYS
    assert result["stored"]["artifact_text"] == LISBON_3_DAYS


def test_get_task_with_history_length(sdk1: Sdk1Run) -> None:
    result = sdk1.feature("get")
    assert result["full"]["state"] == "TASK_STATE_COMPLETED"
    assert len(result["full_history_ids"]) >= 3
    assert result["last_one_history_ids"] == result["full_history_ids"][-1:]
    assert result["last_one"]["artifact_text"] == result["full"]["artifact_text"]
    assert result["unknown_task_error"]["code"] == -32001


def test_list_tasks(sdk1: Sdk1Run) -> None:
    # a2a-sdk 1.x's v0.3 JSON-RPC transport refuses list_tasks with NotImplementedError
    # (a2a/compat/v0_3/jsonrpc_transport.py), so sdk1_client.py records that and lists through
    # httpx, parsing the result with the SDK's 0.3 Task model and converting it to 1.x.
    result = sdk1.feature("list")
    if sdk1.protocol.startswith("1.0"):
        listed = result["via_client"]
        assert listed["ids"][:2] == result["expected_ids"]  # most recently updated first
        assert listed["states"][:2] == ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"]
        assert listed["total_size"] == len(listed["ids"])
        assert listed["page_size"] == 10
        assert listed["next_page_token"] == ""
        return
    assert "not_implemented" in result["via_client"] or result["via_client"]["ids"]
    assert result["ids"][:2] == result["expected_ids"]  # most recently updated first
    assert result["states"][:2] == ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"]
    assert result["total_size"] == len(result["ids"])
    assert result["next_page_token"] == ""


def test_non_blocking_send_returns_at_once(sdk1: Sdk1Run) -> None:
    result = sdk1.feature("non_blocking")
    assert result["returned"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
    assert result["later"]["state"] == "TASK_STATE_COMPLETED"
    assert result["later"]["artifact_text"].count("\n") == 5


def test_cancel(sdk1: Sdk1Run) -> None:
    result = sdk1.feature("cancel")
    assert result["canceled"]["state"] == "TASK_STATE_CANCELED"
    assert result["later"]["state"] == "TASK_STATE_CANCELED"
    assert result["later"]["artifact_text"] == result["canceled"]["artifact_text"]
    assert result["cancel_canceled_error"]["code"] == -32002
    assert result["completed"]["state"] == "TASK_STATE_COMPLETED"
    assert result["completed"]["artifact_text"] == "echo: hello"
    assert result["cancel_completed_error"]["type"] == "TaskNotCancelableError"
    assert result["cancel_completed_error"]["code"] == -32002


def test_resubscribe_resumes_a_running_task(sdk1: Sdk1Run) -> None:
    result = sdk1.feature("resubscribe")
    before, after = result["before"], result["after"]
    assert before[-1]["kind"] == "artifact_update"
    assert after[0]["kind"] == "task"
    assert after[0]["id"] == result["task_id"]
    assert after[0]["state"] == "TASK_STATE_WORKING"
    assert after[-1]["kind"] == "status_update"
    assert after[-1]["state"] == "TASK_STATE_COMPLETED"
    # What the Task carried plus the resumed chunks make the whole artifact, once each.
    resumed = "".join(e["text"] for e in after if e["kind"] == "artifact_update")
    assert after[0]["artifact_text"] + resumed == "".join(f"chunk {i}\n" for i in range(8))


def test_push_notification_config_crud(sdk1: Sdk1Run) -> None:
    result = sdk1.feature("push_config")
    task_id = result["task_id"]
    a = {"task_id": task_id, "id": "a", "url": f"{WEBHOOK}/a", "token": "t1"}
    b = {"task_id": task_id, "id": "b", "url": f"{WEBHOOK}/b", "token": "t2"}
    assert result["created"] == a
    assert result["got"] == b
    assert result["listed"] == [a, b]
    assert result["deleted"] is None
    assert result["after_delete"] == [b]


def test_tenant_is_sent_and_served(sdk1: Sdk1Run) -> None:
    result = sdk1.feature("tenant")
    if sdk1.protocol == "0.3":
        assert "skipped" in result
        return
    assert result["task"]["state"] == "TASK_STATE_COMPLETED"
    assert result["got"] == result["task"]
    assert result["listed"] is True
    # A tenant does not partition the caller's tasks: the same task without it.
    assert result["without_tenant"] == result["task"]
    if sdk1.protocol == "1.0-rest":
        paths = {c["path"] for c in sdk1.results["wire"]}
        assert "/acme/message:send" in paths
        assert f"/acme/tasks/{result['task']['id']}" in paths
        assert "/acme/tasks" in paths
