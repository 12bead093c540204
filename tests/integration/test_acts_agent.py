"""The ACTS agent (examples/acts_agent.py) over real HTTP, in A2A 1.0, in both of ACTS's passes.

Every behaviour of the ACTS behaviour contract (a message whose first part's text starts with
the behaviour's prefix) is driven here on the dev server over SQLite, on default settings, as
`scripts/acts` serves it; then the second pass (`CAPABILITIES_OFF`) checks that the card
declares no optional capability and that each undeclared one is refused as spec 1.0 §3.3.4
says. Running the official runner itself is `scripts/acts` (docs/protocol-versions.md,
"Conformance").
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from examples.acts_agent import CAPABILITIES_OFF
from tests.support.jsonrpc10 import call, kinds, send, stream
from tests.support.server import LiveServer, start_live_server

V10 = {"A2A-Version": "1.0"}
ENV = {"ACTS_LONG_RUNNING_S": "1.0", "ACTS_CANCEL_WAIT_S": "30"}


def serve(tmp: Path, **env: str) -> LiveServer:
    return start_live_server(
        "examples.acts_agent", {"A2A_STORE_URL": f"sqlite:///{tmp / 'tasks.db'}", **ENV, **env}
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = serve(tmp_path_factory.mktemp("acts"))
    yield live
    live.stop()


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, headers=V10, timeout=15) as http:
        yield http


def message(text: str, **fields: Any) -> dict[str, Any]:
    # As the runner does (ACTS §12.4): a fresh messageId unless the test names one.
    return {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]} | fields


def status_text(task: dict[str, Any]) -> str:
    text: str = task["status"]["message"]["parts"][0]["text"]
    return text


# --- pass 1: every capability on -----------------------------------------------------------------


def test_the_card_declares_streaming_and_push(client: httpx.Client) -> None:
    card = client.get("/.well-known/agent-card.json").json()
    assert card["capabilities"]["streaming"] is True
    assert card["capabilities"]["pushNotifications"] is True


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("tck-complete-task hello", "TASK_STATE_COMPLETED"),
        ("tck-input-required please", "TASK_STATE_INPUT_REQUIRED"),
        ("tck-auth-required trigger auth", "TASK_STATE_AUTH_REQUIRED"),
        ("tck-reject-task now", "TASK_STATE_REJECTED"),
        ("tck-task-failure now", "TASK_STATE_FAILED"),
    ],
)
def test_states_with_a_status_message(client: httpx.Client, text: str, state: str) -> None:
    task = send(client, message(text))
    assert task["status"]["state"] == state
    assert task["status"]["message"]["role"] == "ROLE_AGENT"
    assert status_text(task)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tck-artifact-text x", {"text": "Generated text content"}),
        (
            "tck-artifact-file x",
            {
                "raw": "QUNUUyBmaWxlIGNvbnRlbnQ=",
                "mediaType": "text/plain",
                "filename": "output.txt",
            },
        ),
        (
            "tck-artifact-file-url x",
            {
                "url": "https://example.com/output.txt",
                "mediaType": "text/plain",
                "filename": "output.txt",
            },
        ),
        ("tck-artifact-data x", {"data": {"key": "value", "count": 42}}),
    ],
)
def test_artifacts(client: httpx.Client, text: str, expected: dict[str, Any]) -> None:
    task = send(client, message(text))
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    (artifact,) = task["artifacts"]
    assert artifact["parts"] == [expected]


def test_message_response_is_a_message(client: httpx.Client) -> None:
    reply = call(client, "SendMessage", {"message": message("tck-message-response hi")})
    assert list(reply["result"]) == ["message"]
    assert reply["result"]["message"]["role"] == "ROLE_AGENT"
    rest = client.post("/message:send", json={"message": message("tck-message-response hi")})
    assert list(rest.json()) == ["message"]


def test_multi_turn_until_done(client: httpx.Client) -> None:
    task = send(client, message("tck-multi-turn start conversation"))
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    more = send(client, message("here is more input", taskId=task["id"]))
    assert more["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    done = send(client, message("done", taskId=task["id"]))
    assert done["id"] == task["id"] and done["status"]["state"] == "TASK_STATE_COMPLETED"
    # A finished task takes no more messages (spec 1.0 §3.1.1).
    refused = call(client, "SendMessage", {"message": message("again", taskId=task["id"])})
    assert refused["error"]["code"] == -32004


def test_long_running_completes_later_and_can_be_followed(client: httpx.Client) -> None:
    task = send(client, message("tck-long-running start"), returnImmediately=True)
    assert task["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
    events = stream(client, "SubscribeToTask", {"id": task["id"]})
    assert kinds(events)[0] == "task"
    assert kinds(events)[-1] == "statusUpdate:COMPLETED"
    assert any(kind == "artifactUpdate" for kind in kinds(events))


def test_cancel_stays_working_until_canceled(client: httpx.Client) -> None:
    task = send(client, message("tck-cancel me"), returnImmediately=True)
    got = call(client, "GetTask", {"id": task["id"]})["result"]
    assert got["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
    canceled = call(client, "CancelTask", {"id": task["id"]})["result"]
    assert canceled["status"]["state"] == "TASK_STATE_CANCELED"
    # The executor saw it and stopped: the task stays canceled.
    again = call(client, "GetTask", {"id": task["id"]})["result"]
    assert again["status"]["state"] == "TASK_STATE_CANCELED"


def test_stream_basic(client: httpx.Client) -> None:
    events = stream(client, "SendStreamingMessage", {"message": message("tck-stream-basic go")})
    assert kinds(events) == [
        "task",
        "statusUpdate:WORKING",
        "artifactUpdate",
        "statusUpdate:COMPLETED",
    ]


def test_stream_chunked(client: httpx.Client) -> None:
    events = stream(
        client, "SendStreamingMessage", {"message": message("tck-stream-chunked multi-part")}
    )
    assert len(events) >= 3
    chunks = [e["artifactUpdate"] for e in events if "artifactUpdate" in e]
    assert len(chunks) == 3 and chunks[-1]["lastChunk"] is True
    assert len({c["artifact"]["artifactId"] for c in chunks}) == 1
    assert kinds(events)[-1] == "statusUpdate:COMPLETED"


def test_push_config_round_trip(client: httpx.Client) -> None:
    task = send(client, message("tck-long-running push"), returnImmediately=True)
    params = {"taskId": task["id"], "url": "https://example.com/webhooks/a2a-tests"}
    made = call(client, "CreateTaskPushNotificationConfig", params)
    assert made["result"]["url"] == params["url"], made
    call(client, "CancelTask", {"id": task["id"]})


def test_unknown_text_says_so(client: httpx.Client) -> None:
    task = send(client, message("nothing like it"))
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert "No ACTS behaviour" in status_text(task)


# --- pass 2: every optional capability off -------------------------------------------------------


def test_with_capabilities_off_each_is_refused(tmp_path: Path) -> None:
    live = serve(tmp_path, **CAPABILITIES_OFF)
    try:
        with httpx.Client(base_url=live.url, headers=V10, timeout=15) as client:
            card = client.get("/.well-known/agent-card.json").json()
            capabilities = card["capabilities"]
            assert capabilities["streaming"] is False
            assert capabilities.get("pushNotifications", False) is False
            assert capabilities.get("extendedAgentCard", False) is False
            task = send(client, message("tck-complete-task for push"))
            assert task["status"]["state"] == "TASK_STATE_COMPLETED"
            config = {"taskId": task["id"], "url": "https://example.com/webhooks/a2a-tests"}
            push = call(client, "CreateTaskPushNotificationConfig", config)
            assert push["error"]["code"] == -32003  # PushNotificationNotSupportedError, §3.3.4
            streamed = call(client, "SendStreamingMessage", {"message": message("tck-stream")})
            assert streamed["error"]["code"] == -32004
            subscribed = call(client, "SubscribeToTask", {"id": task["id"]})
            assert subscribed["error"]["code"] == -32004
            card_call = call(client, "GetExtendedAgentCard", {})
            assert card_call["error"]["code"] == -32004
    finally:
        live.stop()
