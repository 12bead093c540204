"""Direct answers: an agent answering a message with a Message and no task (agent.direct).

Both versions on both transports (v0.3 JSON-RPC and /v1/message:send, v1.0 JSON-RPC and
/message:send), streams of one Message event, the per-message choice between a reply and a task
(as the v1.0 conformance suite's agent makes it, by messageId prefix), idempotency of replies
(a retry gets the same reply, the hook runs once; a reused messageId is a new message; concurrent
copies get one reply; a reply survives a restart on the same SQLite file), refusals with the
protocol's errors (no task made), the time limit, and an agent that only answers directly.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_serverless import (
    Agent,
    ContentTypeNotSupportedError,
    Context,
    DirectContext,
    InvalidParamsError,
    TaskUpdater,
    UnsupportedOperationError,
    agent,
    direct_agent,
)
from a2a_serverless.models import Message, Part
from tests.integration.test_v10_jsonrpc import rpc, sse_results

V10 = {"A2A-Version": "1.0"}
REPLY_TEXT = "Direct message response"
asked: list[str] = []


def quick(context: DirectContext) -> Any:
    """Answers messages whose id says so; refuses some; leaves the rest to a task."""
    asked.append(context.message.message_id)
    text = context.text
    if text == "bad params":
        raise InvalidParamsError("I cannot take that", data={"field": "message.parts"})
    if text == "bad type":
        raise ContentTypeNotSupportedError("Not that kind of content")
    if text == "unsupported":
        raise UnsupportedOperationError("Not something I do")
    if context.message.message_id.startswith("tck-message-response"):
        return REPLY_TEXT
    return None


@agent(name="Mixed", description="Answers some messages directly.", direct=quick)
def mixed(text: str) -> str:
    return f"task: {text}"


async def slow_hook(text: str) -> str:
    await asyncio.sleep(5)
    return text


@agent(name="Slow", description="Too slow to answer directly.", direct=slow_hook)
def slow(text: str) -> str:
    return text


@direct_agent(name="Stateless", description="Answers everything directly.")
async def stateless(message: Message) -> Message | str | None:
    text = message.parts[0].text or ""
    if text == "nothing":
        return None
    if text == "crash":
        raise RuntimeError("secret detail")
    return Message(
        message_id=f"reply-{message.message_id}",
        role="agent",
        parts=[Part(text=text.upper())],
        metadata={"echoed": True},
    )


def v03_message(text: str, message_id: str | None = None, **fields: Any) -> dict[str, Any]:
    return {
        "kind": "message",
        "messageId": message_id or f"tck-message-response-{uuid.uuid4()}",
        "role": "user",
        "parts": [{"kind": "text", "text": text}],
        **fields,
    }


def v1_message(text: str, message_id: str | None = None, **fields: Any) -> dict[str, Any]:
    return {
        "messageId": message_id or f"tck-message-response-{uuid.uuid4()}",
        "role": "ROLE_USER",
        "parts": [{"text": text}],
        **fields,
    }


async def v03_send(client: httpx.AsyncClient, message: dict[str, Any]) -> dict[str, Any]:
    response = await client.post("/", json=rpc("message/send", {"message": message}))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def v1_send(client: httpx.AsyncClient, message: dict[str, Any]) -> dict[str, Any]:
    body = rpc("SendMessage", {"message": message})
    response = await client.post("/", json=body, headers=V10)
    assert response.status_code == 200, response.text
    reply: dict[str, Any] = response.json()
    return reply


async def no_tasks(client: httpx.AsyncClient) -> None:
    listed = (await client.post("/", json=rpc("tasks/list", {}))).json()
    assert listed["result"]["tasks"] == []


# --- the wire, both versions, both transports ----------------------------------------------------


async def test_v03_jsonrpc_send_answers_a_message(make_client: Any) -> None:
    async with make_client(mixed) as (client, _):
        sent = v03_message("hi", contextId="ctx-1")
        result = (await v03_send(client, sent))["result"]
        assert result["kind"] == "message"
        assert result["role"] == "agent"
        assert result["parts"] == [{"kind": "text", "text": REPLY_TEXT}]
        assert result["contextId"] == "ctx-1"
        assert "taskId" not in result
        assert result["messageId"] != sent["messageId"]
        await no_tasks(client)


async def test_v03_jsonrpc_send_without_context_gets_a_new_one(make_client: Any) -> None:
    async with make_client(mixed) as (client, _):
        result = (await v03_send(client, v03_message("hi")))["result"]
        assert uuid.UUID(result["contextId"])


async def test_per_message_choice_makes_a_task_for_the_others(make_client: Any) -> None:
    async with make_client(mixed) as (client, _):
        result = (await v03_send(client, v03_message("hi", message_id=str(uuid.uuid4()))))["result"]
        assert result["kind"] == "task"
        assert result["status"]["state"] == "completed"
        assert result["artifacts"][0]["parts"][0]["text"] == "task: hi"


async def test_v03_jsonrpc_stream_is_one_message_event(make_client: Any) -> None:
    async with make_client(mixed) as (client, _):
        body = rpc("message/stream", {"message": v03_message("hi")})
        response = await client.post("/", json=body)
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_results(response.text)
        assert len(events) == 1
        assert events[0]["result"]["kind"] == "message"
        assert events[0]["result"]["parts"][0]["text"] == REPLY_TEXT
        # No event log holds a direct reply: the event has no id to resume from.
        assert "\nid:" not in "\n" + response.text


async def test_v10_jsonrpc_send_and_stream(make_client: Any) -> None:
    async with make_client(mixed) as (client, _):
        result = (await v1_send(client, v1_message("hi", contextId="c-10")))["result"]
        assert list(result) == ["message"]
        message = result["message"]
        assert message["role"] == "ROLE_AGENT"
        assert message["parts"] == [{"text": REPLY_TEXT}]
        assert message["contextId"] == "c-10"

        body = rpc("SendStreamingMessage", {"message": v1_message("hi")})
        response = await client.post("/", json=body, headers=V10)
        events = sse_results(response.text)
        assert [list(event["result"]) for event in events] == [["message"]]
        assert events[0]["result"]["message"]["parts"] == [{"text": REPLY_TEXT}]


async def test_v03_rest_send_and_stream(make_client: Any) -> None:
    async with make_client(mixed) as (client, _):
        message = {
            "messageId": f"tck-message-response-{uuid.uuid4()}",
            "role": "ROLE_USER",
            "content": [{"text": "hi"}],
        }
        response = await client.post("/v1/message:send", json={"message": message})
        assert response.status_code == 200, response.text
        body = response.json()
        assert list(body) == ["message"]
        assert body["message"]["role"] == "ROLE_AGENT"
        assert body["message"]["content"] == [{"text": REPLY_TEXT}]

        message["messageId"] = f"tck-message-response-{uuid.uuid4()}"
        response = await client.post("/v1/message:stream", json={"message": message})
        events = sse_results(response.text)
        assert [list(event) for event in events] == [["message"]]


async def test_v10_rest_send_and_stream(make_client: Any) -> None:
    async with make_client(mixed) as (client, _):
        response = await client.post(
            "/message:send", json={"message": v1_message("hi")}, headers=V10
        )
        assert response.status_code == 200, response.text
        assert response.json()["message"]["parts"] == [{"text": REPLY_TEXT}]

        response = await client.post(
            "/message:stream", json={"message": v1_message("hi")}, headers=V10
        )
        events = sse_results(response.text)
        assert [list(event) for event in events] == [["message"]]


async def test_blocking_flag_and_push_config_do_not_matter(make_client: Any) -> None:
    # Push is off here: a push config with a direct reply is ignored, not refused.
    async with make_client(mixed, push_notifications=False) as (client, _):
        params = {
            "message": v03_message("hi"),
            "configuration": {
                "blocking": False,
                "pushNotificationConfig": {"url": "https://example.com/hook"},
            },
        }
        reply = (await client.post("/", json=rpc("message/send", params))).json()
        assert reply["result"]["kind"] == "message"


async def test_a_message_with_a_task_id_is_not_asked_about(make_client: Any) -> None:
    async with make_client(mixed) as (client, _):
        sent = v03_message("hi", message_id=f"tck-message-response-{uuid.uuid4()}", taskId="t-1")
        before = len(asked)
        reply = await v03_send(client, sent)
        assert reply["error"]["code"] == -32001
        assert len(asked) == before


# --- idempotency ---------------------------------------------------------------------------------


async def test_retry_gets_the_same_reply_without_asking_again(make_client: Any) -> None:
    async with make_client(mixed) as (client, _):
        sent = v03_message("hi")
        first = (await v03_send(client, sent))["result"]
        count = asked.count(sent["messageId"])
        again = (await v03_send(client, sent))["result"]
        assert again == first
        # The same message over the other version and transport is the same retry.
        v1 = (await v1_send(client, v1_message("hi", message_id=sent["messageId"])))["result"]
        assert v1["message"]["messageId"] == first["messageId"]
        assert asked.count(sent["messageId"]) == count == 1


async def test_a_reused_message_id_on_another_message_is_a_new_message(make_client: Any) -> None:
    # Clients reuse ids (the TCK sends one id for many messages): only an identical request is
    # a retry; another message with the id is asked of the agent as any new message is.
    async with make_client(mixed) as (client, _):
        sent = v03_message("hi", contextId="c-1")
        first = (await v03_send(client, sent))["result"]
        asked.clear()
        other = await v03_send(client, {**sent, "parts": [{"kind": "text", "text": "other"}]})
        assert other["result"]["kind"] == "message"
        moved = (await v03_send(client, {**sent, "contextId": "c-2"}))["result"]
        assert moved["contextId"] == "c-2"
        message = {"messageId": sent["messageId"], "role": "ROLE_USER", "parts": [{"text": "x"}]}
        response = await client.post("/v1/message:send", json={"message": message})
        assert response.status_code == 200, response.text
        assert "message" in response.json()
        assert asked == [sent["messageId"]] * 3
        # The first message sent again is still its retry: the same reply, the hook not asked.
        assert (await v03_send(client, sent))["result"] == first
        assert len(asked) == 3


async def test_a_reply_stored_before_fingerprints_is_still_replayed(make_client: Any) -> None:
    # Earlier versions kept a reply under `owner\nmessageId` with the parts' digest: the same
    # message gets it back, hook not asked; another message with the id is asked anew.
    from a2a_serverless.service import legacy_idempotency_key
    from a2a_serverless.store.base import StoredReply, message_digest

    async with make_client(mixed) as (client, app):
        sent = v03_message("hi")
        earlier = Message(message_id="old-reply", role="agent", parts=[Part(text="from before")])
        request = Message(message_id=sent["messageId"], role="user", parts=[Part(text="hi")])
        await app.runtime.store.put_reply(
            StoredReply(
                key=legacy_idempotency_key("anonymous", sent["messageId"]),
                owner="anonymous",
                request_digest=message_digest(request),
                reply=earlier,
                created_at_ms=1,
            )
        )
        asked.clear()
        replayed = (await v03_send(client, sent))["result"]
        assert replayed["messageId"] == "old-reply" and asked == []
        other = await v03_send(client, {**sent, "parts": [{"kind": "text", "text": "yo"}]})
        assert other["result"]["messageId"] != "old-reply"
        assert asked == [sent["messageId"]]


async def test_concurrent_copies_get_one_reply(make_client: Any) -> None:
    @agent(name="Random", description="A new reply each time it is asked.", direct=lambda c: None)
    def unused(text: str) -> str:
        return text

    def random_reply(context: DirectContext) -> str:
        return str(uuid.uuid4())

    unused.direct = random_reply
    async with make_client(unused) as (client, _):
        sent = v03_message("hi")
        replies = await asyncio.gather(*(v03_send(client, sent) for _ in range(6)))
        texts = {reply["result"]["parts"][0]["text"] for reply in replies}
        ids = {reply["result"]["messageId"] for reply in replies}
        assert len(texts) == 1 and len(ids) == 1


async def test_reply_survives_a_restart_on_sqlite(make_client: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'direct.db'}"
    sent = v03_message("hi")
    async with make_client(mixed, store_url=url) as (client, _):
        first = (await v03_send(client, sent))["result"]
    async with make_client(mixed, store_url=url) as (client, _):
        assert (await v03_send(client, sent))["result"] == first
    assert asked.count(sent["messageId"]) == 1


async def test_expired_reply_is_answered_anew(make_client: Any) -> None:
    async with make_client(mixed, finished_task_ttl_s=0.05) as (client, _):
        sent = v03_message("hi")
        first = (await v03_send(client, sent))["result"]
        await asyncio.sleep(0.1)
        second = (await v03_send(client, sent))["result"]
        assert second["messageId"] != first["messageId"]
        assert asked.count(sent["messageId"]) == 2


# --- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code", "status", "v1_status"),
    [
        ("bad params", -32602, 400, 400),
        # v1.0's HTTP mapping answers ContentTypeNotSupported with 400 (v10/rest.py).
        ("bad type", -32005, 415, 400),
        ("unsupported", -32004, 400, 400),
    ],
)
async def test_refusal_is_the_protocol_error_and_makes_no_task(
    make_client: Any, text: str, code: int, status: int, v1_status: int
) -> None:
    async with make_client(mixed) as (client, _):
        reply = await v03_send(client, v03_message(text))
        assert reply["error"]["code"] == code
        v1 = await v1_send(client, v1_message(text))
        assert v1["error"]["code"] == code
        message = {
            "messageId": f"tck-message-response-{uuid.uuid4()}",
            "role": "ROLE_USER",
            "content": [{"text": text}],
        }
        response = await client.post("/v1/message:send", json={"message": message})
        assert response.status_code == status
        response = await client.post(
            "/message:send", json={"message": v1_message(text)}, headers=V10
        )
        assert response.status_code == v1_status
        await no_tasks(client)


async def test_refusal_data_reaches_the_client(make_client: Any) -> None:
    async with make_client(mixed) as (client, _):
        reply = await v03_send(client, v03_message("bad params"))
        assert reply["error"]["message"] == "I cannot take that"
        assert reply["error"]["data"] == {"field": "message.parts"}


async def test_hook_past_its_time_is_an_error(make_client: Any) -> None:
    async with make_client(slow, direct_timeout_s=0.2) as (client, _):
        reply = await v03_send(client, v03_message("hi"))
        assert reply["error"]["code"] == -32603
        assert "0.2 s" in reply["error"]["message"]
        assert reply["error"]["data"]["setting"] == "A2A_DIRECT_TIMEOUT_S"
        message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "content": [{"text": "x"}]}
        response = await client.post("/v1/message:send", json={"message": message})
        assert response.status_code == 504
        await no_tasks(client)


# --- an agent that only answers directly --------------------------------------------------------


async def test_direct_agent_answers_everything(make_client: Any) -> None:
    async with make_client(stateless) as (client, _):
        sent = v03_message("hello", message_id="plain-id")
        result = (await v03_send(client, sent))["result"]
        assert result["messageId"] == "reply-plain-id"
        assert result["parts"][0]["text"] == "HELLO"
        assert result["metadata"] == {"echoed": True}
        assert uuid.UUID(result["contextId"])
        await no_tasks(client)


async def test_direct_agent_answering_nothing_is_an_invalid_response(make_client: Any) -> None:
    async with make_client(stateless) as (client, _):
        reply = await v03_send(client, v03_message("nothing"))
        assert reply["error"]["code"] == -32006
        await no_tasks(client)


async def test_direct_agent_failure_hides_its_details(make_client: Any) -> None:
    async with make_client(stateless) as (client, _):
        reply = await v03_send(client, v03_message("crash"))
        assert reply["error"]["code"] == -32603
        assert "secret" not in json.dumps(reply)


async def test_direct_agent_has_no_tasks_to_continue(make_client: Any) -> None:
    async with make_client(stateless) as (client, _):
        reply = await v03_send(client, v03_message("hi", taskId="t-1"))
        assert reply["error"]["code"] == -32001


def test_an_agent_needs_an_executor_or_a_hook() -> None:
    with pytest.raises(TypeError, match="executor, a direct hook or both"):
        Agent(name="Empty", description="Nothing.", executor=None)


class Counter:
    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.complete("done")


async def test_executor_agent_with_a_direct_hook(make_client: Any) -> None:
    def hook(text: str) -> str | None:
        return "quick" if text == "quick" else None

    both = Agent(name="Both", description="Both kinds.", executor=Counter(), direct=hook)
    async with make_client(both) as (client, _):
        quick_reply = (await v03_send(client, v03_message("quick")))["result"]
        assert quick_reply["kind"] == "message"
        task = (await v03_send(client, v03_message("slow")))["result"]
        assert task["kind"] == "task" and task["status"]["state"] == "completed"
