"""The A2A app mounts inside a FastAPI application like any ASGI app."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from a2a_serverless import Settings, agent, create_app


@agent(name="Echo", description="Says back what it is told.")
def echo(text: str) -> str:
    return text


async def test_mounted_under_a_path_serves_card_and_jsonrpc() -> None:
    a2a_app = create_app(echo, Settings(store_url="memory://"))
    api = FastAPI()

    @api.get("/other")
    def other() -> dict[str, str]:
        return {"app": "fastapi"}

    api.mount("/agents/echo", a2a_app)
    transport = httpx.ASGITransport(app=api)
    async with httpx.AsyncClient(transport=transport, base_url="http://example.test") as client:
        assert (await client.get("/other")).json() == {"app": "fastapi"}
        card = (await client.get("/agents/echo/.well-known/agent-card.json")).json()
        assert card["url"] == "http://example.test/agents/echo/"
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "message/send",
            "params": {
                "message": {
                    "role": "user",
                    "messageId": "m1",
                    "parts": [{"kind": "text", "text": "hi"}],
                }
            },
        }
        reply = (await client.post("/agents/echo/", json=body)).json()
        assert reply["result"]["status"]["state"] == "completed"
        assert reply["result"]["artifacts"][0]["parts"][0]["text"] == "hi"
    await a2a_app.runtime.aclose()
