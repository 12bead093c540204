"""Every payload the protocol allows, through the Google Cloud functions (functions-framework,
Pub/Sub, Cloud Tasks and Firestore emulators), the large parts in Cloud Storage
(gcp-storage-emulator): the agent produces each payload in the worker while the HTTP function
streams it live, and tasks/get, the signed webhook and the event log replayed from event 0 give
it back identical -- as they do a client's large inline upload."""

from __future__ import annotations

import base64
import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_serverless.models import Part, TaskArtifactUpdateEvent
from a2a_serverless.push import WebhookVerifier
from a2a_serverless.store import open_store
from a2a_serverless.testing.store_contract import large_file, large_text
from a2a_serverless.v03.jsonrpc_convert import part_out

from .conftest import Deployment, deploy
from .test_functions_e2e import TIMEOUT_S, message, receiving, rpc, wait_for_state

pytestmark = pytest.mark.gcp

LARGE_MAIN = Path(__file__).resolve().parent / "large_main.py"


@pytest.fixture(scope="module")
def large_deployment(
    pubsub_emulator: str,
    cloud_tasks_emulator: str,
    firestore_emulator: str,
    storage_bucket: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Deployment]:
    prefix = f"t{uuid.uuid4().hex[:12]}"
    overrides = {
        "A2A_STORE_URL": (
            f"firestore://a2a-serverless-test/(default)?prefix={prefix}"
            f"&content=gs://{storage_bucket}/functions"
        ),
        # Webhook bodies carry the whole task up to this size (64 KiB by default, past which
        # they leave out history and artifacts): here, every payload.
        "A2A_PUSH_MAX_BODY_BYTES": str(16 * 1024 * 1024),
    }
    log_dir = tmp_path_factory.mktemp("large-functions")
    with deploy(cloud_tasks_emulator, log_dir, overrides, source=LARGE_MAIN) as deployed:
        yield deployed


def dumped(part: Part) -> Any:
    """A part as the wire carries it (A2A 0.3 JSON)."""
    return part_out(part)


async def replayed_parts(store_url: str, task_id: str) -> list[Any]:
    store = open_store(store_url)
    try:
        events = await store.read_events(task_id, 0)
    finally:
        await store.close()
    return [
        dumped(part)
        for event in events
        if isinstance(event.payload, TaskArtifactUpdateEvent)
        for part in event.payload.artifact.parts
    ]


async def stream(client: httpx.AsyncClient, url: str, params: dict[str, Any]) -> list[Any]:
    """message/stream through the HTTP function: every event's `result`."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": params}
    events: list[Any] = []
    async with client.stream("POST", url, json=body) as response:
        assert response.status_code == 200
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                events.append(json.loads(line[5:])["result"])
    return events


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("text 1500000", [Part(text=large_text(1_500_000))]),
        ("file 3000000", [large_file(3_000_000)]),
        ("chunks 32 262144", [Part(text=large_text(262_144, seed=s)) for s in range(32)]),
    ],
    ids=["1.5 MB text", "3 MB file", "8 MB in 32 chunks"],
)
async def test_a_large_artifact_reads_back_identical_by_every_path(
    large_deployment: Deployment, command: str, expected: list[Part]
) -> None:
    want = [dumped(part) for part in expected]
    url = large_deployment.http.url + "/"
    async with receiving() as receiver, httpx.AsyncClient(timeout=TIMEOUT_S) as client:
        params = {
            "message": message(command),
            "configuration": {"pushNotificationConfig": {"url": receiver.url(), "token": "t"}},
        }
        events = await stream(client, url, params)
        task_id = events[0]["id"]
        live = [
            part
            for event in events
            if event["kind"] == "artifact-update"
            for part in event["artifact"]["parts"]
        ]
        assert live == want
        task = await wait_for_state(client, url, task_id, "completed")
        assert task["artifacts"][0]["parts"] == want

        deadline_checks = 0
        while not [
            n
            for n in receiver.notifications()
            if json.loads(n.body)["status"]["state"] == "completed"
        ]:
            deadline_checks += 1
            assert deadline_checks < TIMEOUT_S * 5, "no webhook for the completed task"
            await receiver.wait_for(len(receiver.notifications()) + 1, timeout=TIMEOUT_S)
        (finished,) = [
            n
            for n in receiver.notifications()
            if json.loads(n.body)["status"]["state"] == "completed"
        ]
    verifier = WebhookVerifier(
        jwks_url=large_deployment.http.url + "/.well-known/jwks.json", audience=receiver.url()
    )
    verified = await verifier.verify(finished.headers, finished.body, token="t")
    assert verified.task["artifacts"][0]["parts"] == want
    replayed = await replayed_parts(large_deployment.env["A2A_STORE_URL"], task_id)
    assert replayed == want


@pytest.mark.parametrize("size", [3_000_000, 4 * 1024 * 1024], ids=["3 MB", "4 MiB"])
async def test_a_clients_large_inline_upload_reads_back_identical(
    large_deployment: Deployment, size: int
) -> None:
    # The agent accepts text/plain alone; the bytes are random all the same.
    data = random.Random(size).randbytes(size)
    sent = message("read this")
    sent["parts"].append(
        {
            "kind": "file",
            "file": {"bytes": base64.b64encode(data).decode(), "mimeType": "text/plain"},
        }
    )
    url = large_deployment.http.url + "/"
    async with httpx.AsyncClient(timeout=TIMEOUT_S) as client:
        task = await rpc(
            client, url, "message/send", {"message": sent, "configuration": {"blocking": False}}
        )
        await wait_for_state(client, url, task["id"], "completed")
        fetched = await rpc(client, url, "tasks/get", {"id": task["id"]})
    assert fetched["history"][0]["parts"] == sent["parts"]


# --- Cloud Run's response limit ------------------------------------------------------------------

# Low enough that a 1.5 MB artifact passes it (the default is Cloud Run's 32 MiB).
SMALL_LIMIT = 1_000_000


@pytest.fixture(scope="module")
def limited_deployment(
    pubsub_emulator: str,
    cloud_tasks_emulator: str,
    firestore_emulator: str,
    storage_bucket: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Deployment]:
    prefix = f"t{uuid.uuid4().hex[:12]}"
    overrides = {
        "A2A_STORE_URL": (
            f"firestore://a2a-serverless-test/(default)?prefix={prefix}"
            f"&content=gs://{storage_bucket}/limited"
        ),
        "A2A_MAX_RESPONSE_BYTES": str(SMALL_LIMIT),
    }
    log_dir = tmp_path_factory.mktemp("limited-functions")
    with deploy(cloud_tasks_emulator, log_dir, overrides, source=LARGE_MAIN) as deployed:
        yield deployed


async def test_a_whole_answer_over_the_limit_is_a_typed_error_while_streams_go_live(
    limited_deployment: Deployment,
) -> None:
    url = limited_deployment.http.url
    want = [dumped(Part(text=large_text(1_500_000)))]
    async with httpx.AsyncClient(timeout=TIMEOUT_S) as client:
        # A live stream is chunked: not held to the limit, it carries the whole artifact.
        events = await stream(client, url + "/", {"message": message("text 1500000")})
        task_id = events[0]["id"]
        live = [
            part
            for event in events
            if event["kind"] == "artifact-update"
            for part in event["artifact"]["parts"]
        ]
        assert live == want
        v03 = {"jsonrpc": "2.0", "id": 5, "method": "tasks/get", "params": {"id": task_id}}
        v10 = {"jsonrpc": "2.0", "id": 5, "method": "GetTask", "params": {"id": task_id}}
        one = {"a2a-version": "1.0"}
        answers = {
            "0.3 JSON-RPC": await client.post(url + "/", json=v03),
            "1.0 JSON-RPC": await client.post(url + "/", json=v10, headers=one),
            "0.3 REST": await client.get(f"{url}/v1/tasks/{task_id}"),
            "1.0 REST": await client.get(f"{url}/tasks/{task_id}", headers=one),
        }
    for binding, answer in answers.items():
        payload = answer.json()
        error = payload["error"]
        if "JSON-RPC" in binding:
            assert answer.status_code == 200, binding
            assert error["code"] == -32004 and payload["id"] == 5, (binding, error)
        else:
            assert answer.status_code == 400, (binding, payload)
        assert f"Cloud Run passes on at most {SMALL_LIMIT}" in error["message"], binding
        assert "A2A_MAX_RESPONSE_BYTES" in error["message"]
        if binding in ("0.3 JSON-RPC", "0.3 REST"):
            assert error["data"]["max"] == SMALL_LIMIT
            assert error["data"]["actual"] > SMALL_LIMIT
