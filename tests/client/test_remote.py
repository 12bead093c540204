"""`ctx.remote(name)`: an agent calls another in its turn, configured in code or in
A2A_REMOTE_AGENTS. The calling agent runs in this process (our app, over httpx's ASGI
transport); the called one is our dev server over real HTTP, or a small recording agent."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest

from a2a_serverless import Agent, Context, agent
from a2a_serverless.client import RemoteAgent
from a2a_serverless.client.remote import parse_setting
from a2a_serverless.turn import RemoteAgent as RemoteAgentProtocol
from tests.client.asgi import read_body, send_json
from tests.support.server import LiveServer


def artifact_text(result: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for a in result.get("artifacts", []) for part in a["parts"])


async def send(client: Any, text: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": {
                "kind": "message",
                "messageId": f"m-{text}",
                "role": "user",
                "parts": [{"kind": "text", "text": text}],
            }
        },
    }
    answer = await client.post("/", json=body, headers=headers or {})
    result: dict[str, Any] = answer.json()["result"]
    return result


async def planner(ctx: Context) -> str:
    answer = await ctx.remote("echo").ask(f"asked by planner: {ctx.text}")
    return f"planner got [{answer}]"


def with_remote(remote: str | RemoteAgentProtocol) -> Agent:
    """`planner` as an agent whose remote agent "echo" is `remote`."""
    return agent(remote_agents={"echo": remote})(planner)


async def test_an_agent_asks_another_in_its_turn(
    ours: LiveServer, make_client: Callable[..., AbstractAsyncContextManager[Any]]
) -> None:
    async with make_client(with_remote(ours.url)) as (client, _):
        result = await send(client, "hello")
    assert result["status"]["state"] == "completed"
    assert artifact_text(result) == "planner got [echo: asked by planner: hello]"


async def test_remote_agents_from_settings(
    ours: LiveServer, make_client: Callable[..., AbstractAsyncContextManager[Any]]
) -> None:
    @agent
    async def relay(ctx: Context) -> str:
        return await ctx.remote("echo").ask(ctx.text)

    setting = json.dumps({"echo": {"url": ours.url, "binding": "HTTP+JSON", "version": "0.3"}})
    async with make_client(relay, remote_agents=setting) as (client, app):
        result = await send(client, "via settings")
        remote = app.runtime.worker.remote_agents["echo"]
    assert artifact_text(result) == "echo: via settings"
    assert isinstance(remote, RemoteAgent)
    connected = await remote.client()
    assert (connected.interface.version, connected.interface.binding) == ("0.3", "HTTP+JSON")


async def test_an_unknown_name_fails_the_turn_saying_which_are_configured(
    make_client: Callable[..., AbstractAsyncContextManager[Any]],
) -> None:
    @agent
    async def lost(ctx: Context) -> str:
        return await ctx.remote("nobody").ask("hi")

    async with make_client(lost) as (client, _):
        result = await send(client, "x")
    assert result["status"]["state"] == "failed"


def recording_agent(seen: list[str]) -> Any:
    """A 1.0 JSON-RPC agent that answers every SendMessage with a completed task, and notes
    each request's traceparent."""
    task = {
        "id": "t",
        "contextId": "c",
        "status": {"state": "TASK_STATE_COMPLETED"},
        "artifacts": [{"artifactId": "a", "parts": [{"text": "recorded"}]}],
    }

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = await read_body(receive)
        host = dict(scope["headers"])[b"host"].decode()
        if scope["path"].endswith("agent-card.json"):
            interface = {"url": f"http://{host}/", "protocolBinding": "JSONRPC"}
            card = {"supportedInterfaces": [{**interface, "protocolVersion": "1.0"}]}
            await send_json(send, 200, card)
            return
        seen.append(dict(scope["headers"]).get(b"traceparent", b"").decode())
        request = json.loads(body)
        await send_json(
            send, 200, {"jsonrpc": "2.0", "id": request["id"], "result": {"task": task}}
        )

    return app


async def test_the_call_continues_the_turns_trace(
    serve_asgi: Callable[[Any], AbstractAsyncContextManager[str]],
    make_client: Callable[..., AbstractAsyncContextManager[Any]],
) -> None:
    seen: list[str] = []
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    headers = {"traceparent": f"00-{trace_id}-00f067aa0ba902b7-01"}
    async with serve_asgi(recording_agent(seen)) as url, make_client(with_remote(url)) as app:
        result = await send(app[0], "traced", headers)
    assert artifact_text(result) == "planner got [recorded]"
    assert len(seen) == 1 and seen[0].split("-")[1] == trace_id


def test_the_setting_is_checked() -> None:
    for bad, message in (
        ("[]", "JSON object"),
        ("{", "not JSON"),
        ('{"a": {"apiKey": "k"}}', "needs a URL"),
        ('{"a": {"url": "https://a", "token": "k"}}', "unknown members"),
        ('{"a": {"url": "https://a", "binding": "GRPC"}}', "binding"),
    ):
        with pytest.raises(ValueError, match=message):
            parse_setting(bad)
    found = parse_setting('{"a": {"url": "https://a", "apiKey": "env:KEY", "oauthScopes": ["s"]}}')
    credentials = found["a"].credentials
    assert found["a"].url == "https://a" and found["a"].name == "a"
    assert getattr(credentials, "api_key", None) == "env:KEY"
    assert getattr(credentials, "oauth_scopes", None) == ("s",)
