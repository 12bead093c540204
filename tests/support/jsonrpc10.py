"""A2A 1.0 over JSON-RPC from a test's httpx client, as the conformance kits send it: a call,
a blocking send, a stream read to its end, and the kinds of a stream's events."""

from __future__ import annotations

import json
from typing import Any

import httpx


def call(client: httpx.Client, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """The JSON-RPC reply (result or error) to one call on the agent's endpoint, `/`."""
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    reply: dict[str, Any] = client.post("/", json=body).json()
    return reply


def send(client: httpx.Client, msg: dict[str, Any], **configuration: Any) -> dict[str, Any]:
    """SendMessage's task; the reply must be a result."""
    params: dict[str, Any] = {"message": msg}
    if configuration:
        params["configuration"] = configuration
    reply = call(client, "SendMessage", params)
    assert "result" in reply, reply
    task: dict[str, Any] = reply["result"]["task"]
    return task


def stream(client: httpx.Client, method: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every event's `result` of an SSE answer, read until the server ends it."""
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    events = []
    with client.stream("POST", "/", json=body) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[len("data: ") :])["result"])
    return events


def kinds(events: list[dict[str, Any]]) -> list[str]:
    """Each event's kind, with the state of status updates: `statusUpdate:WORKING`."""
    out = []
    for event in events:
        (kind, value), *_ = event.items()
        if kind == "statusUpdate":
            kind += ":" + value["status"]["state"].removeprefix("TASK_STATE_")
        out.append(kind)
    return out
