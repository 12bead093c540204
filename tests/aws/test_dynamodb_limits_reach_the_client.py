"""DynamoDB's own limits, met by a deployment without a content bucket (DynamoDB Local), reach
the client as typed errors naming them: a client's 3 MB inline file is -32602 / HTTP 413
before anything is stored, in both versions and both bindings; an agent's 3 MB file artifact
fails the task, its status message saying why. Never -32603, never "The agent failed"."""

from __future__ import annotations

import base64
import random
import string
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_serverless import Context, agent
from a2a_serverless.testing.store_contract import large_file
from a2a_serverless_aws.dynamodb import DynamoDBStore
from tests.aws.conftest import DYNAMODB_TEST_REGION

SIZE = 3_000_000


@agent(name="Filer", description="Answers a 3 MB file on 'file', else 'ok'.")
async def filer(ctx: Context) -> AsyncIterator[Any]:
    yield large_file(SIZE) if ctx.text == "file" else "ok"


@pytest.fixture
async def client(
    make_client: Any, dynamodb_endpoint: str, dynamodb_table: str
) -> AsyncIterator[httpx.AsyncClient]:
    store = DynamoDBStore(
        dynamodb_table, region=DYNAMODB_TEST_REGION, endpoint_url=dynamodb_endpoint
    )
    settings = {"store": store, "blocking_timeout_s": 10.0, "poll_interval_s": 0.05}
    async with make_client(filer, **settings) as (client, _app):
        yield client


def upload(message_id: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The 0.3 and the 1.0 parts of a message carrying a 3 MB file inline."""
    data = base64.b64encode(random.Random(7).randbytes(SIZE)).decode()
    v03 = [
        {"kind": "text", "text": "read it"},
        {"kind": "file", "file": {"bytes": data, "mimeType": "text/plain"}},
    ]
    v10 = [{"text": "read it"}, {"raw": data, "mediaType": "text/plain"}]
    return v03, v10


@pytest.mark.parametrize("binding", ["0.3 JSON-RPC", "0.3 REST", "1.0 JSON-RPC", "1.0 REST"])
async def test_a_clients_upload_over_the_item_limit_is_refused_naming_it(
    client: httpx.AsyncClient, binding: str
) -> None:
    v03, v10 = upload(binding)
    one = {"A2A-Version": "1.0"}
    message03 = {"kind": "message", "role": "user", "messageId": f"up-{binding}", "parts": v03}
    message10 = {"role": "ROLE_USER", "messageId": f"up-{binding}", "parts": v10}
    if binding == "0.3 JSON-RPC":
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send"}
        answer = await client.post("/", json={**body, "params": {"message": message03}})
    elif binding == "1.0 JSON-RPC":
        body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage"}
        answer = await client.post(
            "/", json={**body, "params": {"message": message10}}, headers=one
        )
    elif binding == "0.3 REST":
        rest = {"role": "ROLE_USER", "messageId": f"up-{binding}"}
        # proto JSON: the base64 of the base64 text of the file's bytes.
        twice = base64.b64encode(v03[1]["file"]["bytes"].encode()).decode()
        content = [
            {"text": "read it"},
            {"file": {"fileWithBytes": twice, "mimeType": "text/plain"}},
        ]
        answer = await client.post(
            "/v1/message:send", json={"message": {**rest, "content": content}}
        )
    else:
        answer = await client.post("/message:send", json={"message": message10}, headers=one)
    payload = answer.json()
    error = payload["error"]
    if "JSON-RPC" in binding:
        assert answer.status_code == 200 and error["code"] == -32602, error
    else:
        assert answer.status_code == 413, payload
    assert "DynamoDB's item" in error["message"] and "409600" in error["message"], error
    if binding.startswith("0.3"):
        data = error["data"]
        assert (data["limit"], data["store"], data["max"]) == ("store", "DynamoDB's item", 409600)
        assert data["actual"] > 409600
    else:
        details = error["data"] if "JSON-RPC" in binding else error["details"]
        assert details[0]["metadata"]["store"] == "DynamoDB's item"


async def test_an_agents_output_over_the_item_limit_fails_the_task_saying_why(
    client: httpx.AsyncClient,
) -> None:
    message = {"kind": "message", "role": "user", "messageId": "out-1", "parts": []}
    message["parts"] = [{"kind": "text", "text": "file"}]
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
    task = (await client.post("/", json=body)).json()["result"]
    assert task["status"]["state"] == "failed", task
    reason = task["status"]["message"]["parts"][0]["text"]
    assert "DynamoDB's item" in reason and "409600" in reason, reason
    assert "The agent failed" not in reason
    assert not task.get("artifacts"), "the output was not kept"


def large_reply(context: Any) -> str:
    # Random letters: about 750 KB once compressed, over a DynamoDB item.
    return "".join(random.Random(1).choices(string.ascii_letters, k=1_000_000))


@agent(name="Talker", description="Answers directly, at length.", direct=large_reply)
def talker(text: str) -> str:
    return text


async def test_a_direct_reply_over_the_item_limit_is_answered_not_kept(
    make_client: Any,
    dynamodb_endpoint: str,
    dynamodb_table: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = DynamoDBStore(
        dynamodb_table, region=DYNAMODB_TEST_REGION, endpoint_url=dynamodb_endpoint
    )
    async with make_client(talker, store=store) as (client, _app):
        message = {"kind": "message", "role": "user", "messageId": "talk-1", "parts": []}
        message["parts"] = [{"kind": "text", "text": "hello"}]
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
        answer = (await client.post("/", json=body)).json()
    reply = answer["result"]
    assert reply["kind"] == "message", answer
    assert reply["parts"][0]["text"] == large_reply(None)
    assert any("not kept for retries" in r.getMessage() for r in caplog.records)
