"""What running the A2A conformance kit (TCK, `scripts/tck`) found wrong in our A2A 1.0, fixed.

- ProtoJSON parsers accept a field under its proto name too (`history_length`, `task_id`); the
  kit's JSON-RPC client sends those, and the official SDKs' servers read them.
- ListTasks of a context without tasks is an empty list in 1.0 (spec 1.0 §3.1.4 lists no
  error for it); 0.3 still answers TaskNotFound.
- A push config set over 1.0's HTTP+JSON is a 1.0 config: its webhooks carry StreamResponse.
- A messageId sent again on another message is a new message (the kit reuses ids); with
  `dedupe_message_ids` on, an identical copy is still a retry.
"""

from __future__ import annotations

import uuid
from typing import Any

from a2a_serverless import Agent, Context, TaskUpdater

V10 = {"A2A-Version": "1.0"}


class AskThenDone:
    """`ask` waits for input; anything else completes, echoing the text as an artifact."""

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        if context.text == "ask":
            await updater.requires_input("more?")
            return
        await updater.add_artifact(context.text)
        await updater.complete()


agent = Agent(name="Ask", description="Asks, then completes.", executor=AskThenDone())


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def user(text: str, message_id: str | None = None, **fields: Any) -> dict[str, Any]:
    return {
        "messageId": message_id or str(uuid.uuid4()),
        "role": "ROLE_USER",
        "parts": [{"text": text}],
        **fields,
    }


async def call(client: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = (await client.post("/", json=rpc(method, params), headers=V10)).json()
    return reply


async def test_proto_field_names_are_read(make_client: Any) -> None:
    async with make_client(agent) as (client, _):
        sent = await call(
            client,
            "SendMessage",
            {"message": {"message_id": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
        )
        task_id = sent["result"]["task"]["id"]
        got = await call(client, "GetTask", {"id": task_id, "history_length": 0})
        assert "history" not in got["result"]
        created = await call(
            client,
            "CreateTaskPushNotificationConfig",
            {"task_id": task_id, "url": "https://example.com/hook", "id": "c1"},
        )
        assert created["result"]["taskId"] == task_id
        listed = await call(client, "ListTasks", {"page_size": 1, "context_id": "none-such"})
        assert listed["result"]["tasks"] == []


async def test_proto_names_do_not_touch_free_form_json(make_client: Any) -> None:
    async with make_client(agent) as (client, _):
        msg = user("hi", metadata={"task_id": 1})
        msg["parts"] = [{"text": "hi", "metadata": {"message_id": "kept"}}]
        sent = await call(client, "SendMessage", {"message": msg})
        first = sent["result"]["task"]["history"][0]
        assert first["metadata"] == {"task_id": 1}
        assert first["parts"][0]["metadata"] == {"message_id": "kept"}


async def test_json_name_wins_over_proto_name(make_client: Any) -> None:
    async with make_client(agent) as (client, _):
        sent = await call(client, "SendMessage", {"message": user("hi")})
        task_id = sent["result"]["task"]["id"]
        got = await call(
            client, "GetTask", {"id": task_id, "historyLength": 0, "history_length": 5}
        )
        assert "history" not in got["result"]


async def test_list_of_an_empty_context_is_empty_in_v10(make_client: Any) -> None:
    async with make_client(agent) as (client, _):
        listed = await call(client, "ListTasks", {"contextId": "nobody-here"})
        assert listed["result"]["tasks"] == []
        assert listed["result"]["nextPageToken"] == ""
        rest = await client.get("/tasks?contextId=nobody-here", headers=V10)
        assert rest.status_code == 200, rest.text
        assert rest.json()["tasks"] == []
        # 0.3 keeps its answer.
        old = await client.get("/v1/tasks?contextId=nobody-here")
        assert old.status_code == 404


async def test_push_config_set_over_v10_rest_is_a_v10_config(make_client: Any) -> None:
    async with make_client(agent) as (client, app):
        sent = await call(client, "SendMessage", {"message": user("hi")})
        task_id = sent["result"]["task"]["id"]
        reply = await client.post(
            f"/tasks/{task_id}/pushNotificationConfigs",
            json={"url": "https://example.com/hook", "id": "c1"},
            headers=V10,
        )
        assert reply.status_code == 200, reply.text
        (stored,) = await app.runtime.store.list_push_configs(task_id)
        assert stored.protocol == "1.0"


async def test_reused_message_ids_dedupe_by_default(make_client: Any) -> None:
    async with make_client(agent) as (client, _):
        first = await call(client, "SendMessage", {"message": user("a", "same")})
        again = await call(client, "SendMessage", {"message": user("a", "same")})
        assert again["result"]["task"]["id"] == first["result"]["task"]["id"]
        # Another message with the id is a new message (it was refused with -32602 once).
        other = (await call(client, "SendMessage", {"message": user("b", "same")}))["result"]
        assert other["task"]["id"] != first["result"]["task"]["id"]
        assert other["task"]["artifacts"][0]["parts"] == [{"text": "b"}]
        # In one task too, as the kit does: each other message is its own turn, and runs; an
        # identical copy of the last one is its retry, and runs nothing.
        asked = (await call(client, "SendMessage", {"message": user("ask", "again")}))["result"]
        task_id = asked["task"]["id"]
        again = await call(client, "SendMessage", {"message": user("ask", "again", taskId=task_id)})
        assert again["result"]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        done = await call(client, "SendMessage", {"message": user("end", "again", taskId=task_id)})
        task = done["result"]["task"]
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        retried = await call(
            client, "SendMessage", {"message": user("end", "again", taskId=task_id)}
        )
        assert retried["result"]["task"] == task
        assert [m["messageId"] for m in task["history"] if m["role"] == "ROLE_USER"] == [
            "again"
        ] * 3


async def test_without_dedupe_a_reused_id_is_a_new_message(make_client: Any) -> None:
    async with make_client(agent, dedupe_message_ids=False) as (client, _):
        first = (await call(client, "SendMessage", {"message": user("a", "same")}))["result"]
        second = (await call(client, "SendMessage", {"message": user("b", "same")}))["result"]
        assert first["task"]["id"] != second["task"]["id"]
        assert second["task"]["artifacts"][0]["parts"] == [{"text": "b"}]
        # In one task too: each message is its own turn, and each turn runs.
        asked = (await call(client, "SendMessage", {"message": user("ask", "again")}))["result"]
        task_id = asked["task"]["id"]
        assert asked["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        again = await call(client, "SendMessage", {"message": user("ask", "again", taskId=task_id)})
        assert again["result"]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        done = await call(client, "SendMessage", {"message": user("end", "again", taskId=task_id)})
        task = done["result"]["task"]
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        assert [a["parts"] for a in task["artifacts"]] == [[{"text": "end"}]]
        assert [m["messageId"] for m in task["history"] if m["role"] == "ROLE_USER"] == [
            "again"
        ] * 3
