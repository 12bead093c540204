"""A2A v1.0 over JSON-RPC, beside v0.3 on the same endpoint and the same tasks.

Negotiation (`A2A-Version` header or query parameter), the v1.0 shapes (Part oneof, enum names,
`{task}` results, StreamResponse events without `final`), error details (`google.rpc.ErrorInfo`,
`google.rpc.BadRequest`), SubscribeToTask's refusal of finished tasks, push configs in the flat
form with paged lists, -32008 for a required extension, and one task driven in both versions.
The official a2a-sdk 1.x client's view is tests/interop/test_sdk1.py.
"""

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from typing import Any

import httpx
import pytest

from a2a_serverless import Agent, Context, TaskUpdater
from a2a_serverless.models import AgentExtension

V10 = {"A2A-Version": "1.0"}
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"


class EchoExecutor:
    """`ask`: waits for input; `slow`: works until told more; else echoes the parts back."""

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        text = context.text.strip()
        if text == "ask":
            await updater.requires_input("What else?")
            return
        await updater.start_work()
        await updater.add_artifact(list(context.message.parts), name="echo")
        await updater.complete()


echo = Agent(
    name="Echo",
    description="Echoes parts.",
    executor=EchoExecutor(),
    input_modes=["*/*"],
    output_modes=["*/*"],
)
strict = Agent(
    name="Strict",
    description="Needs an extension.",
    executor=EchoExecutor(),
    extensions=[AgentExtension(uri="https://example.com/ext/v1", required=True)],
)


def rpc(method: str, params: dict[str, Any] | None = None, request_id: int = 1) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    return body


def v1_message(*parts: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": list(parts), **fields}


async def call(
    client: httpx.AsyncClient, method: str, params: dict[str, Any] | None = None, **headers: str
) -> dict[str, Any]:
    response = await client.post("/", json=rpc(method, params), headers={**V10, **headers})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def sse_results(text: str) -> list[dict[str, Any]]:
    return [
        json.loads(line[len("data: ") :]) for line in text.splitlines() if line.startswith("data: ")
    ]


# --- negotiation ---------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["1.0", "1", "1.0.1", " 1.0 "])
async def test_version_header_selects_v10(make_client: Any, version: str) -> None:
    async with make_client(echo) as (client, _):
        body = rpc("SendMessage", {"message": v1_message({"text": "hi"})})
        reply = (await client.post("/", json=body, headers={"A2A-Version": version})).json()
        assert reply["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_version_query_parameter_selects_v10(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        body = rpc("SendMessage", {"message": v1_message({"text": "hi"})})
        reply = (await client.post("/?A2A-Version=1.0", json=body)).json()
        assert "task" in reply["result"]


@pytest.mark.parametrize("version", ["2.0", "0.2", "1.1", "latest", "1.0.x"])
async def test_unsupported_version_is_32009_naming_the_supported_ones(
    make_client: Any, version: str
) -> None:
    async with make_client(echo) as (client, _):
        body = rpc("GetTask", {"id": "t"})
        reply = (await client.post("/", json=body, headers={"A2A-Version": version})).json()
        error = reply["error"]
        assert error["code"] == -32009
        info = error["data"][0]
        assert info["@type"] == ERROR_INFO
        assert info["reason"] == "VERSION_NOT_SUPPORTED"
        assert info["domain"] == "a2a-protocol.org"
        assert json.loads(info["metadata"]["supportedVersions"]) == ["0.3", "1.0"]


async def test_v10_method_without_header_is_32009(make_client: Any) -> None:
    # An empty A2A-Version means 0.3 (spec v1.0 §3.6.2): a v1.0 method then is not served.
    async with make_client(echo) as (client, _):
        reply = (await client.post("/", json=rpc("GetTask", {"id": "t"}))).json()
        assert reply["error"]["code"] == -32009
        assert "A2A-Version: 1.0" in reply["error"]["message"]


async def test_v03_method_with_v10_header_is_method_not_found(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        reply = await call(client, "tasks/get", {"id": "t"})
        assert reply["error"]["code"] == -32601
        assert reply["error"]["data"][0]["reason"] == "METHOD_NOT_FOUND"


async def test_empty_header_and_v03_header_stay_v03(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        params = {"message": {"kind": "message", "messageId": "m", "role": "user",
                              "parts": [{"kind": "text", "text": "hi"}]}}  # fmt: skip
        for headers in ({}, {"A2A-Version": ""}, {"A2A-Version": "0.3"}):
            reply = await client.post("/", json=rpc("message/send", params), headers=headers)
            assert reply.json()["result"]["kind"] == "task"


async def test_v10_header_on_v03_rest_routes_is_refused(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        response = await client.get("/v1/tasks/t", headers=V10)
        assert response.status_code == 400
        assert "A2A 1.0" in response.text


# --- shapes ---------------------------------------------------------------------------------------


async def test_parts_of_every_kind_round_trip(make_client: Any) -> None:
    raw = base64.b64encode(b"\x00\x01binary").decode()
    parts = [
        {"text": "hello", "metadata": {"k": "v"}},
        {"raw": raw, "mediaType": "application/octet-stream", "filename": "b.bin"},
        {"url": "https://example.com/a.png", "mediaType": "image/png", "filename": "a.png"},
        {"data": {"a": 1}},
        {"data": [1, "two", None]},
        {"data": "just a string"},
    ]
    async with make_client(echo) as (client, _):
        reply = await call(client, "SendMessage", {"message": v1_message(*parts)})
        task = reply["result"]["task"]
        assert task["artifacts"][0]["parts"] == parts
        assert task["history"][0]["parts"] == parts
        assert task["history"][0]["role"] == "ROLE_USER"
        # The same task read over v0.3: its parts, with non-object data the way the official
        # SDK's compatibility layer writes it.
        v03 = (await client.post("/", json=rpc("tasks/get", {"id": task["id"]}))).json()
        v03_parts = v03["result"]["artifacts"][0]["parts"]
        assert v03_parts[1]["file"] == {
            "bytes": raw,
            "mimeType": "application/octet-stream",
            "name": "b.bin",
        }
        assert v03_parts[4] == {
            "kind": "data",
            "data": {"value": [1, "two", None]},
            "metadata": {"data_part_compat": True},
        }


async def test_base64url_raw_is_kept_as_standard_base64(make_client: Any) -> None:
    data = bytes(range(250, 256)) * 3
    urlsafe = base64.urlsafe_b64encode(data).decode().rstrip("=")
    async with make_client(echo) as (client, _):
        reply = await call(client, "SendMessage", {"message": v1_message({"raw": urlsafe})})
        part = reply["result"]["task"]["artifacts"][0]["parts"][0]
        assert base64.b64decode(part["raw"]) == data


@pytest.mark.parametrize(
    ("part", "field"),
    [
        ({"text": "a", "url": "https://x"}, "message.parts.0"),
        ({}, "message.parts.0"),
        ({"raw": "not base64!"}, "message.parts.0.raw"),
    ],
)
async def test_bad_parts_are_32602_with_field_violations(
    make_client: Any, part: dict[str, Any], field: str
) -> None:
    async with make_client(echo) as (client, _):
        reply = await call(client, "SendMessage", {"message": v1_message(part)})
        error = reply["error"]
        assert error["code"] == -32602
        assert error["data"][0]["reason"] == "INVALID_PARAMS"
        violations = error["data"][1]["fieldViolations"]
        assert [v["field"] for v in violations] == [field]


async def test_v03_role_name_is_refused_in_v10(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        message = v1_message({"text": "hi"}, role="user")
        reply = await call(client, "SendMessage", {"message": message})
        assert reply["error"]["data"][1]["fieldViolations"][0]["field"] == "message.role"


async def test_return_immediately_and_history_length(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        config = {"returnImmediately": True}
        reply = await call(
            client, "SendMessage", {"message": v1_message({"text": "ask"}), "configuration": config}
        )
        task = reply["result"]["task"]
        assert task["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
        got = await call(client, "GetTask", {"id": task["id"], "historyLength": 0})
        assert "history" not in got["result"]
        got = await call(client, "GetTask", {"id": task["id"]})
        assert got["result"]["history"][0]["parts"] == [{"text": "ask"}]


async def test_stream_is_stream_responses_task_first_no_final(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        body = rpc("SendStreamingMessage", {"message": v1_message({"text": "hi"})})
        response = await client.post("/", json=body, headers=V10)
        events = [e["result"] for e in sse_results(response.text)]
        assert list(events[0]) == ["task"]
        assert [next(iter(e)) for e in events[1:]] == [
            "statusUpdate",
            "artifactUpdate",
            "statusUpdate",
        ]
        assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
        assert all("final" not in e.get("statusUpdate", {}) for e in events)


async def test_subscribe_refuses_a_finished_task(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        task = await call(client, "SendMessage", {"message": v1_message({"text": "hi"})})
        task_id = task["result"]["task"]["id"]
        response = await client.post("/", json=rpc("SubscribeToTask", {"id": task_id}), headers=V10)
        # Refused before any stream starts: a plain JSON-RPC error, as 1.0's servers answer.
        assert response.headers["content-type"].startswith("application/json")
        error = response.json()["error"]
        assert error["code"] == -32004
        assert error["data"][0]["reason"] == "UNSUPPORTED_OPERATION"


async def test_subscribe_to_a_waiting_task_follows_it_until_it_finishes(
    make_client: Any,
) -> None:
    # 1.0 §3.1.6: the subscription ends when the task reaches a terminal state, so it stays
    # open while the task waits for input and carries the turn the next message starts.
    async with make_client(echo, stream_timeout_s=10) as (client, _):
        task = await call(client, "SendMessage", {"message": v1_message({"text": "ask"})})
        task_id = task["result"]["task"]["id"]
        subscribe = asyncio.create_task(
            client.post("/", json=rpc("SubscribeToTask", {"id": task_id}), headers=V10)
        )
        await asyncio.sleep(0.2)
        assert not subscribe.done()
        answer = {"message": v1_message({"text": "more"}, taskId=task_id)}
        await call(client, "SendMessage", answer)
        events = [e["result"] for e in sse_results((await subscribe).text)]
        assert events[0]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        states = [e["statusUpdate"]["status"]["state"] for e in events if "statusUpdate" in e]
        assert states[-1] == "TASK_STATE_COMPLETED"
        assert "TASK_STATE_WORKING" in states


async def test_several_subscriptions_each_get_every_event_in_order(make_client: Any) -> None:
    async with make_client(echo, stream_timeout_s=10) as (client, _):
        task = await call(client, "SendMessage", {"message": v1_message({"text": "ask"})})
        task_id = task["result"]["task"]["id"]
        subscriptions = [
            asyncio.create_task(
                client.post("/", json=rpc("SubscribeToTask", {"id": task_id}), headers=V10)
            )
            for _ in range(3)
        ]
        await asyncio.sleep(0.2)
        answer = {"message": v1_message({"text": "more"}, taskId=task_id)}
        await call(client, "SendMessage", answer)
        streams = [(await s).text for s in subscriptions]
        first = sse_results(streams[0])
        assert [sse_results(text) for text in streams[1:]] == [first, first]
        ids = [int(line[4:]) for line in streams[0].splitlines() if line.startswith("id: ")]
        assert ids == sorted(ids) and len(set(ids)) == len(ids)
        assert first[-1]["result"]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
        # Last-Event-ID: a resumed subscription replays what came after the event named.
        resumed = await client.post(
            "/",
            json=rpc("SubscribeToTask", {"id": task_id}),
            headers={**V10, "Last-Event-ID": str(ids[1])},
        )
        assert sse_results(resumed.text) == first[2:]


async def test_unknown_task_error_details(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        reply = await call(client, "GetTask", {"id": "nope"})
        assert reply["error"] == {
            "code": -32001,
            "message": "Task not found",
            "data": [
                {
                    "@type": ERROR_INFO,
                    "reason": "TASK_NOT_FOUND",
                    "domain": "a2a-protocol.org",
                    "metadata": {"taskId": "nope"},
                }
            ],
        }


async def test_required_extension_is_32008_and_v10_header_activates_it(make_client: Any) -> None:
    async with make_client(strict) as (client, _):
        params = {"message": v1_message({"text": "hi"})}
        reply = await call(client, "SendMessage", params)
        assert reply["error"]["code"] == -32008
        assert reply["error"]["data"][0]["reason"] == "EXTENSION_SUPPORT_REQUIRED"
        uri = "https://example.com/ext/v1"
        response = await client.post(
            "/", json=rpc("SendMessage", params), headers={**V10, "A2A-Extensions": uri}
        )
        assert "task" in response.json()["result"]
        assert response.headers["a2a-extensions"] == uri


async def test_list_tasks_in_v10(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        first = await call(client, "SendMessage", {"message": v1_message({"text": "hi"})})
        # Newest first: tasks written in the same millisecond would be ordered by their ids.
        await asyncio.sleep(0.01)
        second = await call(client, "SendMessage", {"message": v1_message({"text": "ask"})})
        ids = [first["result"]["task"]["id"], second["result"]["task"]["id"]]
        listed = (await call(client, "ListTasks", {"pageSize": 1}))["result"]
        assert [t["id"] for t in listed["tasks"]] == ids[1:]
        assert listed["pageSize"] == 1 and listed["totalSize"] == 2
        rest = await call(
            client, "ListTasks", {"pageSize": 1, "pageToken": listed["nextPageToken"]}
        )
        assert [t["id"] for t in rest["result"]["tasks"]] == ids[:1]
        assert rest["result"]["nextPageToken"] == ""
        waiting = await call(client, "ListTasks", {"status": "TASK_STATE_INPUT_REQUIRED"})
        assert [t["id"] for t in waiting["result"]["tasks"]] == ids[1:]
        later = await call(client, "ListTasks", {"statusTimestampAfter": "2999-01-01T00:00:00Z"})
        assert later["result"]["tasks"] == []
        bad = await call(client, "ListTasks", {"statusTimestampAfter": "yesterday"})
        assert bad["error"]["code"] == -32602


async def test_push_configs_flat_and_paged(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        task = await call(client, "SendMessage", {"message": v1_message({"text": "ask"})})
        task_id = task["result"]["task"]["id"]
        made = []
        for n in range(3):
            config = {
                "taskId": task_id,
                "id": f"c{n}",
                "url": f"https://hooks.example.com/{n}",
                "token": f"t{n}",
                "authentication": {"scheme": "Bearer", "credentials": "secret"},
            }
            made.append((await call(client, "CreateTaskPushNotificationConfig", config))["result"])
        assert made[0] == {
            "taskId": task_id,
            "id": "c0",
            "url": "https://hooks.example.com/0",
            "token": "t0",
            "authentication": {"scheme": "Bearer", "credentials": "secret"},
        }
        got = await call(client, "GetTaskPushNotificationConfig", {"taskId": task_id, "id": "c1"})
        assert got["result"] == made[1]
        page = (await call(client, "ListTaskPushNotificationConfigs",
                           {"taskId": task_id, "pageSize": 2}))["result"]  # fmt: skip
        assert page["configs"] == made[:2]
        rest = await call(
            client,
            "ListTaskPushNotificationConfigs",
            {"taskId": task_id, "pageSize": 2, "pageToken": page["nextPageToken"]},
        )
        assert rest["result"] == {"configs": made[2:], "nextPageToken": ""}
        forged = await call(
            client, "ListTaskPushNotificationConfigs", {"taskId": task_id, "pageToken": "AAAA"}
        )
        assert forged["error"]["code"] == -32602
        deleted = await call(
            client, "DeleteTaskPushNotificationConfig", {"taskId": task_id, "id": "c0"}
        )
        assert deleted["result"] == {}
        # The same configs, read over v0.3: one set of push configs for both versions.
        v03 = await client.post("/", json=rpc("tasks/pushNotificationConfig/list", {"id": task_id}))
        assert [c["pushNotificationConfig"]["id"] for c in v03.json()["result"]] == ["c1", "c2"]


async def test_extended_card_not_declared_is_unsupported_operation(make_client: Any) -> None:
    # Spec 1.0 §3.3.4: `extendedAgentCard: false` MUST answer UnsupportedOperationError (it was
    # -32007, which the spec keeps for an agent that declares a card but has none configured).
    async with make_client(echo) as (client, _):
        card = (await client.get("/.well-known/agent-card.json")).json()
        assert card["capabilities"]["extendedAgentCard"] is False
        reply = await call(client, "GetExtendedAgentCard")
        assert reply["error"]["code"] == -32004
        assert reply["error"]["data"][0]["reason"] == "UNSUPPORTED_OPERATION"
        # 0.3 keeps its own code: its spec has only AuthenticatedExtendedCardNotConfigured.
        v03 = await client.post("/", json=rpc("agent/getAuthenticatedExtendedCard"))
        assert v03.json()["error"]["code"] == -32007


# --- one task, both versions ----------------------------------------------------------------------


async def test_a_task_made_over_v03_is_continued_over_v10_and_seen_by_both(
    make_client: Any,
) -> None:
    async with make_client(echo) as (client, _):
        v03_message = {"kind": "message", "messageId": "m-1", "role": "user",
                       "parts": [{"kind": "text", "text": "ask"}]}  # fmt: skip
        made = (await client.post("/", json=rpc("message/send", {"message": v03_message}))).json()
        task_id, context_id = made["result"]["id"], made["result"]["contextId"]
        assert made["result"]["status"]["state"] == "input-required"
        # v1.0 sees it, lists it and continues it.
        got = await call(client, "GetTask", {"id": task_id})
        assert got["result"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        listed = await call(client, "ListTasks", {"contextId": context_id})
        assert [t["id"] for t in listed["result"]["tasks"]] == [task_id]
        more = v1_message({"text": "more"}, taskId=task_id, contextId=context_id)
        done = await call(client, "SendMessage", {"message": more})
        assert done["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
        # v0.3 reads the whole history, both turns, and resubscribes to the finished task.
        v03 = (await client.post("/", json=rpc("tasks/get", {"id": task_id}))).json()["result"]
        assert v03["status"]["state"] == "completed"
        assert [m["messageId"] for m in v03["history"] if m["role"] == "user"] == [
            "m-1",
            more["messageId"],
        ]
        stream = await client.post("/", json=rpc("tasks/resubscribe", {"id": task_id}))
        [snapshot] = sse_results(stream.text)
        assert snapshot["result"]["kind"] == "task"
        assert snapshot["result"]["status"]["state"] == "completed"
