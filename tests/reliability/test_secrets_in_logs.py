"""Secrets never reach the logs, with every logger at DEBUG (ours, httpx, httpcore, PyJWT...).

tests/auth/test_hygiene.py checks the authenticators on their own (errors, reprs, logs). This
drives the whole app, over both transports, through everything that handles a secret:

- every kind of refused credential: a wrong API key, a garbage bearer token, and every JWT of
  `jwt_attacks.attacks()` (expired, another audience, another key, `alg: none`, HS256 signed
  with the server's public key, an attacker's key in the header, tampered, ...);
- good credentials: an API key and a bearer JWT that are accepted;
- push configs carrying a `token` and Bearer / Basic `credentials`, set with message/send and
  with the push config methods, read back, listed and deleted;
- webhook deliveries signed with the agent's private keys (EC and RSA): delivered, retried after
  a 500, and dead-lettered after a 401 (and after a
  401 whose body repeats the request's credentials);
- the private signing keys themselves (each private JWK member, and the whole JSON).

Every log record is formatted (with tracebacks) and searched for every secret value.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from a2a_serverless import Context, InputRequired, agent
from a2a_serverless.asgi import A2AApplication
from a2a_serverless.push import generate_key
from a2a_serverless.queue.inprocess import InProcessQueue
from tests.push.webhook_server import Received, Reply, WebhookServer
from tests.reliability.jwt_attacks import AUTH_SETTINGS, attacks, good_token

API_KEY = "sk-live-GOOD-5fbd0c1e9a7243d1b6"
WRONG_KEY = "sk-live-WRONG-77aa01bb23cc45dd"
PUSH_KEYS = [generate_key("ES256"), generate_key("RS256")]
PUSH_TOKEN = "push-token-SECRET-3c9d1e"
BEARER_CREDENTIALS = "receiver-bearer-SECRET-8f2a"
BASIC_CREDENTIALS = "hookuser:hook-PASSWORD-SECRET-41"


@agent(name="Quiet", description="Asks once, then echoes.")
def quiet(ctx: Context) -> str:
    if not ctx.is_continuation:
        raise InputRequired("And?")
    return ctx.text


@dataclass
class Tokens:
    """Bearer tokens made when the test runs (a token made at import could expire first)."""

    good: str = field(default_factory=good_token)
    refused: list[str] = field(
        default_factory=lambda: ["garbage-SECRET-bearer-value", *attacks().values()]
    )


SETTINGS = {
    **AUTH_SETTINGS,
    "dev_mode": True,
    "blocking_timeout_s": 5.0,
    "poll_interval_s": 0.02,
    "auth_api_keys": f"{API_KEY}=alice",
    "push_signing_keys": json.dumps(PUSH_KEYS),
    "push_backoff_base_s": 0.01,
    "push_backoff_max_s": 0.02,
    "push_max_attempts": 3,
}


def secrets(received: list[Received], tokens: Tokens) -> list[str]:
    """Every secret value the run handled, and the telling parts of each."""
    values = [API_KEY, WRONG_KEY, tokens.good, PUSH_TOKEN, BEARER_CREDENTIALS, BASIC_CREDENTIALS]
    values.append(base64.b64encode(BASIC_CREDENTIALS.encode()).decode())
    values += tokens.refused
    for key in PUSH_KEYS:
        values.append(json.dumps(key))
        values += [str(key[name]) for name in ("d", "p", "q", "dp", "dq", "qi") if name in key]
    # The JWTs the agent signed for each notification (a replayable credential until it expires).
    for request in received:
        for name in ("authorization", "x-a2a-notification-jwt", "x-a2a-notification-token"):
            value = request.headers.get(name)
            if value:
                values.append(value.split(" ", 1)[-1])
    # Signatures on their own (a JWT's last part), where there is one.
    values += [v.rsplit(".", 1)[1] for v in list(values) if v.count(".") == 2 and v[-1] != "."]
    return [v for v in values if len(v) >= 8]


# A receiver that echoes the request's headers in its error body: delivery reasons (logged,
# kept with dead letters) say only the status and the body's size, never the body.
ECHOING = pytest.param(True, id="receiver-echoes-headers")


@pytest.fixture(params=[pytest.param(False, id="receiver-says-no"), ECHOING])
async def receiver(request: pytest.FixtureRequest) -> AsyncIterator[WebhookServer]:
    echo: bool = request.param

    def behaviour(received: Received) -> Reply:
        if received.path == "/flaky" and len(receiver_calls(server, "/flaky")) == 1:
            return Reply(500, body=b"try again")
        if received.path == "/nosy":
            if not echo:
                return Reply(401, body=b"who are you?")
            # An error page that repeats the credentials it got, as some debug pages do.
            headers = received.headers.items()
            echoed = {k: v for k, v in headers if "auth" in k or "a2a" in k}
            return Reply(401, {"Content-Type": "application/json"}, json.dumps(echoed).encode())
        return Reply(200)

    server = WebhookServer(behaviour)
    await server.start()
    yield server
    await server.stop()


def receiver_calls(server: WebhookServer, path: str) -> list[Received]:
    return [r for r in server.requests if r.path == path]


def push_config(url: str, config_id: str, kind: str) -> dict[str, Any]:
    config: dict[str, Any] = {"id": config_id, "url": url, "token": PUSH_TOKEN}
    if kind == "bearer":
        config["authentication"] = {"schemes": ["Bearer"], "credentials": BEARER_CREDENTIALS}
    elif kind == "basic":
        config["authentication"] = {"schemes": ["Basic"], "credentials": BASIC_CREDENTIALS}
    return config


async def exercise(client: httpx.AsyncClient, receiver: WebhookServer, tokens: Tokens) -> None:
    """Everything in the module docstring, over JSON-RPC and REST."""
    good = [{"X-API-Key": API_KEY}, {"Authorization": f"Bearer {tokens.good}"}]
    refused = [{"X-API-Key": WRONG_KEY}] + [
        {"Authorization": f"Bearer {value}"} for value in tokens.refused
    ]

    def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}

    def message(text: str, **extra: Any) -> dict[str, Any]:
        parts = [{"kind": "text", "text": text}]
        return {"role": "user", "messageId": f"m-{text}", "parts": parts, **extra}

    for headers in refused:
        response = await client.post("/", json=rpc("tasks/list", {}), headers=headers)
        assert response.status_code == 401, (headers, response.text)
        response = await client.get("/v1/tasks", headers=headers)
        assert response.status_code == 401, (headers, response.text)

    for index, headers in enumerate(good):
        # JSON-RPC: a message with a push config (token + Bearer credentials), then the push
        # config methods with Basic credentials.
        params = {
            "message": message(f"rpc-{index}"),
            "configuration": {
                "blocking": True,
                "pushNotificationConfig": push_config(receiver.url("/ok"), "a", "bearer"),
            },
        }
        task = (await client.post("/", json=rpc("message/send", params), headers=headers)).json()
        task_id = task["result"]["id"]
        for path, config_id, kind in (("/flaky", "b", "basic"), ("/nosy", "c", "none")):
            set_params = {
                "taskId": task_id,
                "pushNotificationConfig": push_config(receiver.url(path), config_id, kind),
            }
            answer = await client.post(
                "/", json=rpc("tasks/pushNotificationConfig/set", set_params), headers=headers
            )
            assert "result" in answer.json(), answer.text
        for method, extra in (
            ("tasks/pushNotificationConfig/get", {"pushNotificationConfigId": "a"}),
            ("tasks/pushNotificationConfig/list", {}),
        ):
            await client.post("/", json=rpc(method, {"id": task_id, **extra}), headers=headers)
        # The answer completes the task: every config gets a notification.
        params = {"message": message(f"rpc-{index}-answer", taskId=task_id)}
        answer = await client.post("/", json=rpc("message/send", params), headers=headers)
        assert answer.json()["result"]["status"]["state"] == "completed", answer.text

        # REST: the same, in proto JSON.
        body: dict[str, Any] = {
            "message": {
                "messageId": f"rest-{index}",
                "role": "ROLE_USER",
                "content": [{"text": f"rest-{index}"}],
            },
            "configuration": {
                "blocking": True,
                "pushNotification": push_config(receiver.url("/ok"), "a", "basic"),
            },
        }
        sent = await client.post("/v1/message:send", json=body, headers=headers)
        assert sent.status_code == 200, sent.text
        rest_id = sent.json()["task"]["id"]
        configs = f"/v1/tasks/{rest_id}/pushNotificationConfigs"
        bare = {"pushNotificationConfig": push_config(receiver.url("/nosy"), "n", "bearer")}
        assert (await client.post(configs, json=bare, headers=headers)).status_code == 200
        await client.get(configs, headers=headers)
        await client.get(f"{configs}/n", headers=headers)
        body["message"] = {
            "messageId": f"rest-{index}-answer",
            "taskId": rest_id,
            "role": "ROLE_USER",
            "content": [{"text": "answer"}],
        }
        answer = await client.post("/v1/message:send", json=body, headers=headers)
        assert answer.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED", answer.text
        await client.delete(f"{configs}/a", headers=headers)
        # A message that continues nothing: a refused request with a push config in it.
        body["message"]["taskId"] = "no-such-task"
        body["message"]["messageId"] = f"rest-refused-{index}"
        assert (
            await client.post("/v1/message:send", json=body, headers=headers)
        ).status_code == 404


async def drain(app: A2AApplication) -> None:
    queue = app.runtime.queue
    assert isinstance(queue, InProcessQueue)
    await queue.drain()


async def test_no_secret_reaches_the_logs(
    make_client: Any, receiver: WebhookServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    tokens = Tokens()
    async with make_client(quiet, **SETTINGS) as (client, app):
        await exercise(client, receiver, tokens)
        await drain(app)
        # Deliveries happened, and failed in both ways, so their paths were all logged.
        assert receiver_calls(receiver, "/ok")
        assert len(receiver_calls(receiver, "/flaky")) >= 2
        assert receiver_calls(receiver, "/nosy")
    text = "\n".join(logging.Formatter().format(record) for record in caplog.records)
    assert "refused" in text and "delivered" in text, "the run logged less than it should"
    assert any(r.name.startswith("httpcore") for r in caplog.records), "DEBUG was not on"
    checked = secrets(receiver.requests, tokens)
    print(f"\n{len(caplog.records)} log records searched for {len(checked)} secret values")
    leaked = [value for value in checked if value in text]
    assert leaked == [], f"{len(leaked)} secret value(s) in the logs, e.g. {leaked[0][:12]}..."
