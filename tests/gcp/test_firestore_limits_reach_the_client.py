"""Firestore's own limits, met by a deployment without a content bucket (the Firestore
emulator), reach the client as typed errors naming them: a client's 3 MB inline file is -32602
/ HTTP 413 before anything is stored, in both versions; an agent's 3 MB file artifact fails the
task, its status message saying why. Never -32603, never "The agent failed"."""

from __future__ import annotations

import base64
import random
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_serverless import Context, agent
from a2a_serverless.testing.store_contract import large_file
from a2a_serverless_gcp.firestore import FirestoreStore

SIZE = 3_000_000


@agent(name="Filer", description="Answers a 3 MB file on 'file', else 'ok'.")
async def filer(ctx: Context) -> AsyncIterator[Any]:
    yield large_file(SIZE) if ctx.text == "file" else "ok"


@pytest.fixture
async def client(
    make_client: Any, firestore_store: FirestoreStore
) -> AsyncIterator[httpx.AsyncClient]:
    settings = {"store": firestore_store, "blocking_timeout_s": 10.0, "poll_interval_s": 0.05}
    async with make_client(filer, **settings) as (client, _app):
        yield client


@pytest.mark.parametrize("version", ["0.3", "1.0"])
async def test_a_clients_upload_over_the_document_limit_is_refused_naming_it(
    client: httpx.AsyncClient, version: str
) -> None:
    data = base64.b64encode(random.Random(7).randbytes(SIZE)).decode()
    if version == "0.3":
        parts = [
            {"kind": "text", "text": "read it"},
            {"kind": "file", "file": {"bytes": data, "mimeType": "text/plain"}},
        ]
        message = {"kind": "message", "role": "user", "messageId": "up-03", "parts": parts}
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
        answer = await client.post("/", json=body)
        error = answer.json()["error"]
        assert answer.status_code == 200 and error["code"] == -32602, error
        assert error["data"]["limit"] == "store"
        assert error["data"]["store"].startswith("Firestore's")
        assert error["data"]["actual"] > error["data"]["max"]
    else:
        parts = [{"text": "read it"}, {"raw": data, "mediaType": "text/plain"}]
        message = {"role": "ROLE_USER", "messageId": "up-10", "parts": parts}
        answer = await client.post(
            "/message:send", json={"message": message}, headers={"A2A-Version": "1.0"}
        )
        assert answer.status_code == 413, answer.text
        error = answer.json()["error"]
        assert error["details"][0]["metadata"]["store"].startswith("Firestore's")
    assert "Firestore's" in error["message"], error


async def test_an_agents_output_over_the_document_limit_fails_the_task_saying_why(
    client: httpx.AsyncClient,
) -> None:
    message = {
        "kind": "message",
        "role": "user",
        "messageId": "out-1",
        "parts": [{"kind": "text", "text": "file"}],
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
    task = (await client.post("/", json=body)).json()["result"]
    assert task["status"]["state"] == "failed", task
    reason = task["status"]["message"]["parts"][0]["text"]
    assert "Firestore's" in reason and "takes at most" in reason, reason
    assert "The agent failed" not in reason
    assert not task.get("artifacts"), "the output was not kept"
