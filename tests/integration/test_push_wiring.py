"""Push notifications as a deployment offers them: card, JWKS endpoint, -32003, end to end.

The delivery machinery itself is tested in tests/push; here it is wired into the app.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_serverless import agent
from a2a_serverless.push import WebhookVerifier, generate_keys_json
from tests.push.webhook_server import WebhookServer


@agent(name="Echo", description="Says back what it is told.")
def echo(text: str) -> str:
    return text


SET = "tasks/pushNotificationConfig/set"


def send_body(message_id: str, **config: Any) -> dict[str, Any]:
    message = {"role": "user", "messageId": message_id, "parts": [{"kind": "text", "text": "hi"}]}
    params: dict[str, Any] = {"message": message}
    if config:
        params["configuration"] = config
    return {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params}


@pytest.fixture
async def webhook() -> AsyncIterator[WebhookServer]:
    server = await WebhookServer().start()
    yield server
    await server.stop()


async def test_dev_mode_offers_push_with_an_ephemeral_key(make_client: Any) -> None:
    async with make_client(echo, dev_mode=True) as (client, _app):
        card = (await client.get("/.well-known/agent-card.json")).json()
        assert card["capabilities"]["pushNotifications"] is True
        jwks = (await client.get("/.well-known/jwks.json")).json()
        [key] = jwks["keys"]
        assert key["kid"] and "d" not in key  # public half only


async def test_production_without_keys_offers_no_push(make_client: Any) -> None:
    async with make_client(echo, dev_mode=False) as (client, _app):
        card = (await client.get("/.well-known/agent-card.json")).json()
        assert card["capabilities"]["pushNotifications"] is False
        assert (await client.get("/.well-known/jwks.json")).status_code == 404
        task = (await client.post("/", json=send_body("m1"))).json()["result"]
        params = {"taskId": task["id"], "pushNotificationConfig": {"url": "https://h.example/a"}}
        reply = await client.post(
            "/", json={"jsonrpc": "2.0", "id": 2, "method": SET, "params": params}
        )
        assert reply.json()["error"]["code"] == -32003


async def test_production_with_keys_publishes_every_key(make_client: Any) -> None:
    keys = generate_keys_json("ES256", generate_keys_json("RS256"))
    async with make_client(echo, dev_mode=False, push_signing_keys=keys) as (client, _app):
        card = (await client.get("/.well-known/agent-card.json")).json()
        assert card["capabilities"]["pushNotifications"] is True
        published = (await client.get("/.well-known/jwks.json")).json()["keys"]
        assert {k["kid"] for k in published} == {k["kid"] for k in json.loads(keys)}
        assert all("d" not in k and "p" not in k for k in published)


async def test_dev_server_delivers_a_signed_notification_end_to_end(
    live_server: Any, webhook: WebhookServer, tmp_path: Any
) -> None:
    """Real HTTP both ways: the dev server's worker POSTs to a loopback receiver, which
    verifies the JWT against the JWKS the dev server publishes."""
    server = live_server(None, A2A_STORE_URL=f"sqlite:///{tmp_path / 'tasks.db'}")
    url = webhook.url()
    body = send_body(
        "push-e2e",
        blocking=False,
        pushNotificationConfig={"url": url, "token": "client-token"},
    )
    body["params"]["message"]["parts"][0]["text"] = "Plan 2 days in Lisbon"
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
        task = (await client.post("/", json=body)).json()["result"]
        [notification] = await webhook.wait_for(1, timeout=15)
        verifier = WebhookVerifier(
            f"{server.url}/.well-known/jwks.json", audience=url, token="client-token"
        )
        verified = await verifier.verify(notification.headers, notification.body)
        assert verified.task_id == task["id"]
        pushed = json.loads(notification.body)
        assert pushed["id"] == task["id"] and pushed["status"]["state"] == "completed"
        got = await client.post(
            "/",
            json={"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"id": task["id"]}},
        )
        assert got.json()["result"]["status"]["state"] == "completed"
