"""Wrapping existing functions-framework functions (HTTP and CloudEvent) as agents, end to end
through the A2A app: message -> request/event, response -> artifact, errors -> failed task."""

from __future__ import annotations

import uuid
from typing import Any

import flask
import functions_framework
import pytest

from a2a_serverless_gcp.wrap import wrap_cloudevent_function, wrap_http_function
from tests.integration.jsonrpc_agents import result_of

FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02}
EVENTS: list[Any] = []


@functions_framework.http
def lookup(request: flask.Request) -> Any:
    """Looks things up.

    More words."""
    body = request.get_json()
    if body.get("text") == "boom":
        raise RuntimeError("lookup backend down")
    if body.get("text") == "nope":
        return "no such thing", 404
    if body.get("text") == "plain":
        return "just text"
    # The module-level flask.request works too, as in a deployed function.
    return {"found": body, "task": flask.request.headers["X-A2A-Task-Id"]}


@functions_framework.cloud_event
def on_message(event: Any) -> None:
    EVENTS.append(event)


def message(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"message": {"role": "user", "messageId": f"m-{uuid.uuid4()}", "parts": list(parts)}}


async def send(client: Any, *parts: dict[str, Any]) -> dict[str, Any]:
    return await result_of(client, "message/send", message(*parts))  # type: ignore[no-any-return]


async def test_http_function_gets_the_message_as_a_json_request(make_client: Any) -> None:
    async with make_client(wrap_http_function(lookup), **FAST) as (client, _app):
        card = (await client.get("/.well-known/agent-card.json")).json()
        task = await send(client, {"kind": "data", "data": {"sku": "A-1"}})
        plain = await send(client, {"kind": "text", "text": "plain"})
    assert (card["name"], card["description"]) == ("Lookup", "Looks things up.")
    assert task["status"]["state"] == "completed"
    assert task["artifacts"][0]["parts"][0]["data"] == {"found": {"sku": "A-1"}, "task": task["id"]}
    assert plain["artifacts"][0]["parts"][0] == {"kind": "text", "text": "just text"}


@pytest.mark.parametrize(
    ("text", "reason"),
    [("nope", "no such thing"), ("boom", "RuntimeError: lookup backend down")],
)
async def test_http_errors_and_exceptions_fail_the_task(
    make_client: Any, text: str, reason: str
) -> None:
    async with make_client(wrap_http_function(lookup), **FAST) as (client, _app):
        task = await send(client, {"kind": "text", "text": text})
    assert task["status"]["state"] == "failed"
    assert task["status"]["message"]["parts"][0]["text"] == reason


async def test_cloudevent_function_gets_the_message_as_event_data(make_client: Any) -> None:
    EVENTS.clear()
    async with make_client(wrap_cloudevent_function(on_message), **FAST) as (client, _app):
        task = await send(client, {"kind": "text", "text": "hello there"})
    assert task["status"]["state"] == "completed"
    assert "artifacts" not in task
    [event] = EVENTS
    assert event["type"] == "a2a.message.v1"
    assert event["subject"] == task["id"]
    assert event.data == {"text": "hello there"}


def test_the_deployment_and_its_runtime_are_built_with_the_collector_paused() -> None:
    from a2a_serverless import collector
    from a2a_serverless_gcp.deployment import Deployment

    for build in (Deployment.__init__, Deployment._build_runtime):
        assert build.__code__.co_filename == collector.__file__
