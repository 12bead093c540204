"""The TCK scenario agent (examples/tck_agent.py) over real HTTP, in A2A 1.0.

Each scenario of the A2A conformance kit's `scenarios/*.feature` is driven here as the kit
drives it (a messageId with the scenario's prefix, a session suffix after it), on the dev
server over SQLite, served as `scripts/tck` serves it: on default settings, deduplication on
(the kit sends one id for many messages; only an identical request is a retry). CI covers
the agent's behaviour without the kit; running the kit itself is `scripts/tck`
(docs/protocol-versions.md, "Conformance").
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.jsonrpc10 import kinds, send, stream
from tests.support.server import LiveServer, start_live_server

V10 = {"A2A-Version": "1.0"}
SESSION = uuid.uuid4().hex[:8]
# The kit's TCK_STREAMING_TIMEOUT, shortened: the long-running scenario lasts twice this.
STREAMING_TIMEOUT_S = 0.5


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = Path(tmp_path_factory.mktemp("tck")) / "tasks.db"
    live = start_live_server(
        "examples.tck_agent",
        {
            "A2A_STORE_URL": f"sqlite:///{db}",
            "TCK_STREAMING_TIMEOUT": str(STREAMING_TIMEOUT_S),
        },
    )
    yield live
    live.stop()


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, headers=V10, timeout=15) as http:
        yield http


def message(prefix: str, text: str = "TCK", **fields: Any) -> dict[str, Any]:
    return {
        "messageId": f"{prefix}-{SESSION}",
        "role": "ROLE_USER",
        "parts": [{"text": text}],
        **fields,
    }


def only_part(task: dict[str, Any]) -> dict[str, Any]:
    (artifact,) = task["artifacts"]
    (part,) = artifact["parts"]
    return part  # type: ignore[no-any-return]


# --- core scenarios ------------------------------------------------------------------------------


def test_complete_task_answers_hello(client: httpx.Client) -> None:
    task = send(client, message("tck-complete-task"))
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert task["status"]["message"]["parts"] == [{"text": "Hello from TCK"}]
    assert task["status"]["message"]["role"] == "ROLE_AGENT"


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("tck-artifact-text", {"text": "Generated text content"}),
        (
            "tck-artifact-file",
            {"raw": "dGNr", "mediaType": "text/plain", "filename": "output.txt"},
        ),
        (
            "tck-artifact-file-url",
            {
                "url": "https://example.com/output.txt",
                "mediaType": "text/plain",
                "filename": "output.txt",
            },
        ),
        ("tck-artifact-data", {"data": {"key": "value", "count": 42}}),
    ],
)
def test_artifact_scenarios(client: httpx.Client, prefix: str, expected: dict[str, Any]) -> None:
    task = send(client, message(prefix))
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert only_part(task) == expected


def test_input_required_then_continued(client: httpx.Client) -> None:
    task = send(client, message("tck-input-required"))
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    # The kit continues such a task with the same ids it used before: the turn runs anyway.
    again = send(client, message("tck-input-required", "more", taskId=task["id"]))
    assert again["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    done = send(client, message("tck-complete-task", "done", taskId=task["id"]))
    assert done["id"] == task["id"]
    assert done["status"]["state"] == "TASK_STATE_COMPLETED"
    texts = [m["parts"][0]["text"] for m in done["history"] if m["role"] == "ROLE_USER"]
    assert texts == ["TCK", "more", "done"]


def test_reject_task(client: httpx.Client) -> None:
    task = send(client, message("tck-reject-task"))
    assert task["status"]["state"] == "TASK_STATE_REJECTED"
    assert task["status"]["message"]["parts"] == [{"text": "rejected"}]


def test_unknown_prefix_says_so(client: httpx.Client) -> None:
    task = send(client, message("tck-nothing-like-it"))
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    text = task["status"]["message"]["parts"][0]["text"]
    assert text == f"Unhandled messageId prefix: tck-nothing-like-it-{SESSION}"


def test_a_reused_message_id_makes_a_new_task(client: httpx.Client) -> None:
    # The kit sends `tck-complete-task-<session>` for every task it needs completed.
    first = send(client, message("tck-complete-task"))
    second = send(client, message("tck-complete-task", "another"))
    assert first["id"] != second["id"]
    assert second["status"]["state"] == "TASK_STATE_COMPLETED"


def test_message_response_is_a_message_and_no_task(client: httpx.Client) -> None:
    msg = message("tck-message-response")
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": msg}}
    result = client.post("/", json=body).json()["result"]
    assert list(result) == ["message"]
    assert result["message"]["role"] == "ROLE_AGENT"
    assert result["message"]["parts"] == [{"text": "Direct message response"}]
    assert "taskId" not in result["message"]
    # The same over HTTP+JSON, and streamed: one message, then the stream ends.
    rest = client.post("/message:send", json={"message": message("tck-message-response")})
    assert rest.json()["message"]["parts"] == [{"text": "Direct message response"}]
    events = stream(client, "SendStreamingMessage", {"message": message("tck-message-response")})
    assert kinds(events) == ["message"]
    listed = client.post(
        "/",
        json={
            "jsonrpc": "2.0",
            "id": 2,
            "method": "ListTasks",
            "params": {"contextId": result["message"]["contextId"]},
        },
    ).json()["result"]
    assert listed["tasks"] == []


def test_core_scenario_over_http_json(client: httpx.Client) -> None:
    reply = client.post("/message:send", json={"message": message("tck-artifact-text")})
    assert reply.status_code == 200, reply.text
    task = reply.json()["task"]
    assert only_part(task) == {"text": "Generated text content"}


# --- streaming scenarios -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefix", "text"),
    [
        ("tck-stream-001", "Stream hello from TCK"),
        ("tck-stream-003", "Stream task lifecycle"),
        ("tck-stream-ordering-001", "Ordered output"),
        ("tck-stream-artifact-text", "Streamed text content"),
    ],
)
def test_streamed_text_scenarios(client: httpx.Client, prefix: str, text: str) -> None:
    events = stream(client, "SendStreamingMessage", {"message": message(prefix)})
    assert kinds(events) == [
        "task",
        "statusUpdate:WORKING",
        "artifactUpdate",
        "statusUpdate:COMPLETED",
    ]
    assert events[2]["artifactUpdate"]["artifact"]["parts"] == [{"text": text}]


def test_stream_002_completes_at_once(client: httpx.Client) -> None:
    events = stream(client, "SendStreamingMessage", {"message": message("tck-stream-002")})
    assert kinds(events) == ["task", "statusUpdate:COMPLETED"]


def test_streamed_file_artifact(client: httpx.Client) -> None:
    events = stream(
        client, "SendStreamingMessage", {"message": message("tck-stream-artifact-file")}
    )
    assert kinds(events)[2] == "artifactUpdate"
    assert events[2]["artifactUpdate"]["artifact"]["parts"] == [
        {"raw": "dGNr", "mediaType": "text/plain", "filename": "output.txt"}
    ]


def test_streamed_chunked_artifact(client: httpx.Client) -> None:
    events = stream(
        client, "SendStreamingMessage", {"message": message("tck-stream-artifact-chunked")}
    )
    assert kinds(events) == [
        "task",
        "statusUpdate:WORKING",
        "artifactUpdate",
        "artifactUpdate",
        "statusUpdate:COMPLETED",
    ]
    first, last = (e["artifactUpdate"] for e in events[2:4])
    assert first["artifact"]["artifactId"] == last["artifact"]["artifactId"]
    assert first["artifact"]["parts"] == [{"text": "chunk-1 "}]
    assert first.get("lastChunk") is not True
    assert last["artifact"]["parts"] == [{"text": "chunk-2"}]
    assert last["append"] is True
    assert last["lastChunk"] is True


def test_long_running_task_can_be_subscribed_to(client: httpx.Client) -> None:
    # The kit resubscribes to a task started with this prefix: it must still be working then.
    started = time.monotonic()
    seen: dict[str, Any] = {}
    first_events: list[dict[str, Any]] = []

    def run_stream(consume: Callable[[list[dict[str, Any]]], None]) -> None:
        consume(
            stream(
                client, "SendStreamingMessage", {"message": message("test-resubscribe-message-id")}
            )
        )

    thread = threading.Thread(target=run_stream, args=(first_events.extend,))
    thread.start()
    deadline = time.monotonic() + 5
    while "id" not in seen and time.monotonic() < deadline:
        reply = client.post(
            "/",
            json={"jsonrpc": "2.0", "id": 2, "method": "ListTasks", "params": {"pageSize": 100}},
        ).json()
        for task in reply["result"]["tasks"]:
            if task["status"]["state"] == "TASK_STATE_WORKING":
                seen = task
        time.sleep(0.05)
    assert "id" in seen, "the long-running task never showed up working"
    events = stream(client, "SubscribeToTask", {"id": seen["id"]})
    thread.join(10)
    assert kinds(events)[0] == "task"
    assert kinds(events)[-1] == "statusUpdate:COMPLETED"
    assert kinds(first_events)[-1] == "statusUpdate:COMPLETED"
    assert time.monotonic() - started >= 2 * STREAMING_TIMEOUT_S
