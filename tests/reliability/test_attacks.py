"""The holes an attack run found (issue 17), pinned so they stay closed.

Each test names the attack: forged page tokens, content types and Host headers a browser or a
DNS rebinding could send, cursors past the end of a log, over-long webhook URLs, a store that
fails mid-turn, reused message ids, poisoned agent cards, webhook amplification.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_serverless import Settings
from a2a_serverless.pagetoken import PageTokens, page_token_key
from tests.reliability.harness import fuzz_agent

TRANSPORTS = ["jsonrpc", "rest"]


@pytest.fixture
async def client(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(fuzz_agent, blocking_timeout_s=5.0, poll_interval_s=0.02) as (
        client,
        _app,
    ):
        yield client


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


async def list_tasks(client: httpx.AsyncClient, transport: str, **params: Any) -> httpx.Response:
    if transport == "jsonrpc":
        body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/list", "params": params}
        return await client.post("/", json=body)
    return await client.get("/v1/tasks", params=params)


def refused_as_invalid(response: httpx.Response, transport: str) -> dict[str, Any]:
    if transport == "jsonrpc":
        assert response.status_code == 200, response.text
    else:
        assert response.status_code == 400, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == -32602, error
    return error


async def send_text(client: httpx.AsyncClient, message_id: str, text: str = "hi") -> dict[str, Any]:
    message = {"role": "user", "messageId": message_id, "parts": [{"kind": "text", "text": text}]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
    reply: dict[str, Any] = (await client.post("/", json=body)).json()
    return reply


# --- 1. forged page tokens ----------------------------------------------------------------------

FORGED_TOKENS = {
    "lone-surrogate": b64(b'[1,"\\ud800"]'),
    "deep-nesting": b64(b"[" * 5000),
    "old-unsigned-form": b64(json.dumps([1, "x"]).encode()),
    "huge-position": b64(json.dumps([10**30, "x"]).encode()),
    "mac-of-nothing": ".",
    "non-ascii": "é.é",
    "very-long": "A" * 60_000,
}


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("token", FORGED_TOKENS.values(), ids=FORGED_TOKENS.keys())
async def test_forged_page_tokens_are_invalid_params(
    client: httpx.AsyncClient, transport: str, token: str
) -> None:
    await send_text(client, "page-1")
    error = refused_as_invalid(await list_tasks(client, transport, pageToken=token), transport)
    assert error["data"]["errors"][0]["field"].endswith("pageToken")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_page_token_edited_or_signed_elsewhere_is_refused(
    client: httpx.AsyncClient, transport: str
) -> None:
    for n in range(3):
        await send_text(client, f"page-{n}")
    first = await list_tasks(client, transport, pageSize=1)
    token = first.json()["result" if transport == "jsonrpc" else "nextPageToken"]
    token = token["nextPageToken"] if isinstance(token, dict) else token
    assert (await list_tasks(client, transport, pageSize=1, pageToken=token)).status_code == 200
    payload, mac = token.split(".")
    edited = b64(b"1:" + base64.urlsafe_b64decode(payload + "==").split(b":", 1)[1]) + "." + mac
    refused_as_invalid(await list_tasks(client, transport, pageToken=edited), transport)
    other_key = PageTokens(page_token_key(Settings(page_token_key="another deployment")))
    foreign = other_key.encode(1, "x")
    refused_as_invalid(await list_tasks(client, transport, pageToken=foreign), transport)


def test_the_page_token_key_is_per_deployment() -> None:
    by_store = page_token_key(Settings(store_url="sqlite:///a.db"))
    assert by_store != page_token_key(Settings(store_url="sqlite:///b.db"))
    keyed = page_token_key(Settings(page_token_key="k", push_signing_keys="[]"))
    assert keyed != page_token_key(Settings(push_signing_keys="[]")) != by_store
    assert "s3cret" not in repr(Settings(page_token_key="s3cret"))
