"""-32005: parts the agent does not accept, or output modes it cannot produce, are refused."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_serverless import agent, skill

calls: list[str] = []


@agent(name="Text only")
def text_only(text: str) -> str:
    calls.append(text)
    return text


@agent(
    name="Images",
    input_modes=["text/plain"],
    output_modes=["text/plain"],
    skills=[skill("look", "Look", "Looks at images", input_modes=["image/*"])],
)
def images(text: str) -> str:
    return "seen"


def send_body(parts: list[dict[str, Any]], **config: Any) -> dict[str, Any]:
    params: dict[str, Any] = {
        "message": {"role": "user", "messageId": f"m-{len(calls)}-{id(parts)}", "parts": parts}
    }
    if config:
        params["configuration"] = config
    return {"jsonrpc": "2.0", "id": 7, "method": "message/send", "params": params}


@pytest.mark.parametrize(
    "part",
    [
        {"kind": "data", "data": {"a": 1}},
        {"kind": "file", "file": {"uri": "https://example.com/x.png", "mimeType": "image/png"}},
        {"kind": "file", "file": {"bytes": "aGk="}},
    ],
)
async def test_part_the_agent_does_not_take_is_refused(
    make_client: Any, part: dict[str, Any]
) -> None:
    async with make_client(text_only) as (client, _app):
        response = await client.post("/", json=send_body([{"kind": "text", "text": "hi"}, part]))
        error = response.json()["error"]
        assert error["code"] == -32005
        assert error["data"]["acceptedInputModes"] == ["text/plain"]
        listed = await client.post("/", json={"jsonrpc": "2.0", "id": 1, "method": "tasks/list"})
        assert listed.json()["result"]["tasks"] == []  # nothing was stored


async def test_skill_input_modes_are_accepted_with_wildcards(make_client: Any) -> None:
    part = {"kind": "file", "file": {"uri": "https://example.com/x.png", "mimeType": "image/png"}}
    async with make_client(images) as (client, _):
        response = await client.post("/", json=send_body([part]))
        assert response.json()["result"]["status"]["state"] == "completed"


async def test_accepted_output_modes_the_agent_cannot_produce(make_client: Any) -> None:
    async with make_client(text_only) as (client, _):
        body = send_body([{"kind": "text", "text": "hi"}], acceptedOutputModes=["audio/mpeg"])
        assert (await client.post("/", json=body)).json()["error"]["code"] == -32005
        body = send_body([{"kind": "text", "text": "hi"}], acceptedOutputModes=["text/*"])
        assert (await client.post("/", json=body)).json()["result"]["status"][
            "state"
        ] == "completed"
