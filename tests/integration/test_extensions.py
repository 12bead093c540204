"""Extensions: declared on the card, activated by X-A2A-Extensions, echoed, seen by the agent."""

from __future__ import annotations

from typing import Any

from a2a_serverless import Context, agent
from a2a_serverless.models import AgentExtension

TIMESTAMPS = "https://example.com/ext/timestamp/v1"
PASSPORT = "https://example.com/ext/passport/v1"
seen: list[tuple[str, ...]] = []


@agent(
    name="Extended",
    description="Reports which extensions are active.",
    extensions=[
        AgentExtension(uri=TIMESTAMPS, description="Adds timestamps"),
        AgentExtension(uri=PASSPORT, description="Caller context", required=False),
    ],
)
def extended(ctx: Context) -> str:
    seen.append(ctx.extensions)
    return ",".join(ctx.extensions) or "none"


@agent(
    name="Strict",
    description="Needs an extension.",
    extensions=[AgentExtension(uri=PASSPORT, required=True)],
)
def strict(text: str) -> str:
    return text


def send(message_id: str) -> dict[str, Any]:
    message = {"role": "user", "messageId": message_id, "parts": [{"kind": "text", "text": "hi"}]}
    return {"jsonrpc": "2.0", "id": "x", "method": "message/send", "params": {"message": message}}


async def test_card_declares_extensions(make_client: Any) -> None:
    async with make_client(extended) as (client, _app):
        card = (await client.get("/.well-known/agent-card.json")).json()
        uris = [e["uri"] for e in card["capabilities"]["extensions"]]
        assert uris == [TIMESTAMPS, PASSPORT]


async def test_requested_extensions_are_activated_echoed_and_visible_to_the_agent(
    make_client: Any,
) -> None:
    async with make_client(extended) as (client, _app):
        header = f"{PASSPORT}, https://unknown.example/ext/v9 ,{TIMESTAMPS}"
        response = await client.post("/", json=send("e1"), headers={"X-A2A-Extensions": header})
        assert response.headers["x-a2a-extensions"] == f"{PASSPORT}, {TIMESTAMPS}"
        task = response.json()["result"]
        assert task["artifacts"][0]["parts"][0]["text"] == f"{PASSPORT},{TIMESTAMPS}"


async def test_without_the_header_nothing_is_active(make_client: Any) -> None:
    async with make_client(extended) as (client, _app):
        response = await client.post("/", json=send("e2"))
        assert "x-a2a-extensions" not in response.headers
        assert response.json()["result"]["artifacts"][0]["parts"][0]["text"] == "none"


async def test_a_required_extension_not_requested_is_refused(make_client: Any) -> None:
    async with make_client(strict) as (client, _app):
        response = await client.post("/", json=send("e3"))
        error = response.json()["error"]
        assert error["code"] == -32600
        assert error["data"] == {"requiredExtensions": [PASSPORT]}
        assert PASSPORT in error["message"]
        ok = await client.post("/", json=send("e4"), headers={"X-A2A-Extensions": PASSPORT})
        assert ok.json()["result"]["status"]["state"] == "completed"
        assert ok.headers["x-a2a-extensions"] == PASSPORT


async def test_streaming_responses_echo_the_extensions(make_client: Any) -> None:
    async with make_client(extended) as (client, _app):
        body = send("e5") | {"method": "message/stream"}
        headers = {"X-A2A-Extensions": TIMESTAMPS}
        async with client.stream("POST", "/", json=body, headers=headers) as response:
            assert response.headers["x-a2a-extensions"] == TIMESTAMPS
            assert response.headers["content-type"].startswith("text/event-stream")
            async for _ in response.aiter_lines():
                pass
