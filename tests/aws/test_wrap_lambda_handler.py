"""Wrapping an existing Lambda handler `(event, context)` as an agent, end to end through the
A2A app: message parts -> event, result -> artifact, exceptions -> a failed task."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest

from a2a_serverless_aws.wrap import LambdaContext, wrap_lambda_handler
from tests.integration.jsonrpc_agents import result_of

FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02}
SEEN: list[tuple[Any, LambdaContext]] = []


def orders(event: Any, context: LambdaContext) -> Any:
    """Looks up orders.

    Longer description that is not the card's."""
    SEEN.append((event, context))
    if isinstance(event, dict) and event.get("orderId") == "missing":
        raise KeyError("order missing not found")
    return {
        "orderId": event.get("orderId"),
        "status": "shipped",
        "left": context.get_remaining_time_in_millis() > 0,
    }


def api_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    body = json.loads(event["body"])
    if body.get("text") == "teapot":
        return {"statusCode": 418, "body": "I'm a teapot"}
    if body.get("text") == "plain":
        return {"statusCode": 200, "headers": {"Content-Type": "text/plain"}, "body": "hello"}
    return {
        "statusCode": 200,
        "headers": {"content-type": "application/json"},
        "body": json.dumps({"method": event["requestContext"]["http"]["method"], "got": body}),
    }


async def async_handler(event: Any, context: Any) -> str:
    await asyncio.sleep(0)
    return f"async got {event['text']}"


def message(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"message": {"role": "user", "messageId": f"m-{uuid.uuid4()}", "parts": list(parts)}}


def text(value: str) -> dict[str, Any]:
    return {"kind": "text", "text": value}


def data(value: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "data", "data": value}


async def send(client: Any, *parts: dict[str, Any]) -> dict[str, Any]:
    return await result_of(client, "message/send", message(*parts))  # type: ignore[no-any-return]


async def test_card_comes_from_the_handler(make_client: Any) -> None:
    wrapped = wrap_lambda_handler(orders)
    async with make_client(wrapped, **FAST) as (client, _app):
        card = (await client.get("/.well-known/agent-card.json")).json()
    assert card["name"] == "Orders"
    assert card["description"] == "Looks up orders."
    assert "application/json" in card["defaultInputModes"]


@pytest.mark.parametrize(
    ("parts", "event"),
    [
        ([data({"orderId": "o-1"})], {"orderId": "o-1"}),
        ([text('{"orderId": "o-2"}')], {"orderId": "o-2"}),
        ([text("where is o-3")], {"text": "where is o-3"}),
        (
            [text("see"), data({"orderId": "o-4"})],
            {"text": "see", "data": [{"orderId": "o-4"}]},
        ),
    ],
)
async def test_message_parts_become_the_event(
    make_client: Any, parts: list[dict[str, Any]], event: Any
) -> None:
    SEEN.clear()
    async with make_client(wrap_lambda_handler(orders), **FAST) as (client, _app):
        task = await send(client, *parts)
    assert task["status"]["state"] == "completed"
    [(seen_event, context)] = SEEN
    assert seen_event == event
    assert context.aws_request_id == task["id"]
    assert context.function_name == "orders"
    [artifact] = task["artifacts"]
    result = artifact["parts"][0]
    assert result["kind"] == "data"
    assert result["data"]["status"] == "shipped" and result["data"]["left"] is True


async def test_an_exception_fails_the_task_as_lambda_reports_it(make_client: Any) -> None:
    async with make_client(wrap_lambda_handler(orders), **FAST) as (client, _app):
        task = await send(client, data({"orderId": "missing"}))
    assert task["status"]["state"] == "failed"
    assert task["status"]["message"]["parts"][0]["text"] == "KeyError: 'order missing not found'"


async def test_errors_can_be_hidden_from_clients(make_client: Any) -> None:
    wrapped = wrap_lambda_handler(orders, expose_errors=False)
    async with make_client(wrapped, **FAST) as (client, _app):
        task = await send(client, data({"orderId": "missing"}))
    assert task["status"]["message"]["parts"][0]["text"] == "The wrapped handler failed."


async def test_api_gateway_handlers_get_a_proxy_event_and_are_unwrapped(make_client: Any) -> None:
    wrapped = wrap_lambda_handler(api_handler, event="api-gateway")
    async with make_client(wrapped, **FAST) as (client, _app):
        ok = await send(client, text("hi"))
        plain = await send(client, text("plain"))
        teapot = await send(client, text("teapot"))
    assert ok["artifacts"][0]["parts"][0]["data"] == {"method": "POST", "got": {"text": "hi"}}
    assert plain["artifacts"][0]["parts"][0] == {"kind": "text", "text": "hello"}
    assert teapot["status"]["state"] == "failed"
    assert teapot["status"]["message"]["parts"][0]["text"] == "I'm a teapot"


async def test_async_handlers_are_awaited(make_client: Any) -> None:
    async with make_client(wrap_lambda_handler(async_handler), **FAST) as (client, _app):
        task = await send(client, text("ping"))
    assert task["artifacts"][0]["parts"][0]["text"] == "async got ping"


def test_unknown_event_style_is_refused() -> None:
    with pytest.raises(ValueError, match="event must be"):
        wrap_lambda_handler(orders, event="sqs")  # type: ignore[arg-type]
