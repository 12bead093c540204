"""The agent over A2A JSON-RPC, as a client sees it."""

from __future__ import annotations

import uuid
from typing import Any

import httpx


def send(text: str, task_id: str | None = None) -> dict[str, Any]:
    """A JSON-RPC `message/send` request that waits for the turn to end."""
    message: dict[str, Any] = {
        "kind": "message",
        "role": "user",
        "messageId": str(uuid.uuid4()),
        "parts": [{"kind": "text", "text": text}],
    }
    if task_id is not None:
        message["taskId"] = task_id
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {"message": message, "configuration": {"blocking": True}},
    }


async def test_the_card_describes_the_agent(client: httpx.AsyncClient) -> None:
    response = await client.get("/.well-known/agent-card.json")
    assert response.status_code == 200
    card = response.json()
    assert card["name"] == {{ cookiecutter.agent_name | tojson }}
    assert [s["id"] for s in card["skills"]] == ["echo"]


async def test_it_says_back_what_it_is_told(client: httpx.AsyncClient) -> None:
    task = (await client.post("/", json=send("hello"))).json()["result"]
    assert task["status"]["state"] == "completed"
    (artifact,) = task["artifacts"]
    assert artifact["parts"] == [{"kind": "text", "text": "You said: hello"}]


async def test_it_asks_when_told_nothing_and_continues_the_task(
    client: httpx.AsyncClient,
) -> None:
    task = (await client.post("/", json=send(" "))).json()["result"]
    assert task["status"]["state"] == "input-required"
    assert task["status"]["message"]["parts"][0]["text"] == "What should I say back?"

    answered = (await client.post("/", json=send("hi", task_id=task["id"]))).json()["result"]
    assert answered["id"] == task["id"]
    assert answered["status"]["state"] == "completed"
    assert answered["artifacts"][0]["parts"][0]["text"] == "You said: hi"
