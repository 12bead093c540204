"""How many DynamoDB requests each A2A method costs on the DynamoDB store: the README's table.

The app runs in-process on a DynamoDBStore with a queue that only records jobs, so a request's
own calls and the worker's turn it queues are counted apart (on Lambda they run in different
invocations). The agent answers at once; `finished_task_ttl_s` is set, as in production, so
finishing a task includes its TTL sweep. If this fails after a change, update the table in
adapters/aws/README.md ("DynamoDB store") to the measured values the failure prints.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from a2a_serverless import Context, InputRequired, agent
from a2a_serverless.queue.base import RUN_AGENT
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_aws.dynamodb import DynamoDBStore, create_table
from tests.aws.conftest import DYNAMODB_TEST_REGION, new_table_name
from tests.aws.dynamodb_support import counting
from tests.integration.agent_fixtures import RecordingQueue, rpc, send_params

pytestmark = pytest.mark.aws

# A2A method (and case) -> the DynamoDB calls it makes, in order.
EXPECTED: dict[str, list[str]] = {
    # No look-up first: the transaction claims the key and checks, without writing it, that
    # the key earlier versions wrote (owner + messageId) is free.
    "message/send (new task, non-blocking)": ["TransactWriteItems"],
    # Events go inline in the task item: the worker's writes are single-item UpdateItems.
    "  its turn in the worker (completes; TTL sweep)": [
        "GetItem",
        "UpdateItem",
        "UpdateItem",
        "UpdateItem",
        "Query",
        "UpdateItem",
        "UpdateItem",
        "Query",
    ],
    "message/send (new task, asks for input)": ["TransactWriteItems"],
    "  its turn in the worker (input-required)": [
        "GetItem",
        "UpdateItem",
        "UpdateItem",
        "UpdateItem",
        "Query",
    ],
    "message/send (continues the task)": [
        "GetItem",
        "GetItem",
        "GetItem",
        "TransactWriteItems",
    ],
    "tasks/get": ["GetItem"],
    "tasks/list (one page)": ["Query by_owner", "BatchGetItem"],
    "tasks/list (first of several pages)": [
        "Query by_owner",
        "BatchGetItem",
        "Query by_owner COUNT",
    ],
    "tasks/cancel (input-required task; TTL sweep)": [
        "GetItem",
        "UpdateItem",
        "Query",
        "UpdateItem",
        "UpdateItem",
        "Query",
    ],
    "tasks/cancel (finished task: refused)": ["GetItem"],
    # The Query lists the task's configs: at most A2A_PUSH_MAX_CONFIGS_PER_TASK, one per URL.
    "tasks/pushNotificationConfig/set": [
        "GetItem",
        "Query",
        "GetItem",
        "PutItem",
        "GetItem",
        "UpdateItem",
    ],
    "tasks/pushNotificationConfig/get": ["GetItem", "Query"],
    "tasks/pushNotificationConfig/list": ["GetItem", "Query"],
    "tasks/pushNotificationConfig/delete": ["GetItem", "DeleteItem", "GetItem", "UpdateItem"],
    "tasks/resubscribe (finished task)": ["GetItem"],
}


@agent(name="Echo", description="Echoes; asks for a name first when told to ask.")
async def echo(ctx: Context) -> str:
    if ctx.text.startswith("ask") and not ctx.is_continuation:
        raise InputRequired("What is your name?")
    return f"echo: {ctx.text}"


@pytest.fixture
async def own_table_store(dynamodb_endpoint: str) -> AsyncIterator[DynamoDBStore]:
    # A table of its own: `tasks/list` pages through the caller's tasks, and other tests leave
    # tasks of the same (anonymous) owner in the shared table.
    name = new_table_name()
    create_table(name, region=DYNAMODB_TEST_REGION, endpoint_url=dynamodb_endpoint)
    store = DynamoDBStore(name, region=DYNAMODB_TEST_REGION, endpoint_url=dynamodb_endpoint)
    yield store
    await store.close()


async def test_requests_per_a2a_method(
    make_client: Callable[..., Any], own_table_store: DynamoDBStore
) -> None:
    store = own_table_store
    queue = RecordingQueue()
    measured: dict[str, list[str]] = {}

    async def measure(name: str, call: Callable[[], Awaitable[Any]]) -> Any:
        with counting(store) as calls:
            result = await call()
        measured[name] = calls
        return result

    async with make_client(
        echo, store=store, queue=queue, finished_task_ttl_s=3600, stream_timeout_s=5
    ) as (client, app):

        async def call(method: str, params: dict[str, Any]) -> Any:
            data = await rpc(client, method, params)
            return data.get("result", data.get("error"))

        async def run_turn(name: str) -> None:
            (job,) = [job for job in queue.jobs if job.kind == RUN_AGENT]
            queue.jobs.clear()
            await measure(name, lambda: app.runtime.worker.handle(job))

        done = await measure(
            "message/send (new task, non-blocking)",
            lambda: call("message/send", send_params("hi", blocking=False)),
        )
        await run_turn("  its turn in the worker (completes; TTL sweep)")
        asking = await measure(
            "message/send (new task, asks for input)",
            lambda: call("message/send", send_params("ask", blocking=False)),
        )
        await run_turn("  its turn in the worker (input-required)")
        await measure(
            "tasks/pushNotificationConfig/set",
            lambda: call(
                "tasks/pushNotificationConfig/set",
                {
                    "taskId": asking["id"],
                    "pushNotificationConfig": {"url": "https://hooks.example.com/a2a"},
                },
            ),
        )
        await measure(
            "tasks/pushNotificationConfig/get",
            lambda: call("tasks/pushNotificationConfig/get", {"id": asking["id"]}),
        )
        await measure(
            "tasks/pushNotificationConfig/list",
            lambda: call("tasks/pushNotificationConfig/list", {"id": asking["id"]}),
        )
        await measure(
            "tasks/pushNotificationConfig/delete",
            lambda: call(
                "tasks/pushNotificationConfig/delete",
                {"id": asking["id"], "pushNotificationConfigId": asking["id"]},
            ),
        )
        await measure(
            "message/send (continues the task)",
            lambda: call("message/send", send_params("Bob", blocking=False, task_id=asking["id"])),
        )
        queue.jobs.clear()
        await measure("tasks/get", lambda: call("tasks/get", {"id": done["id"]}))
        await measure("tasks/list (one page)", lambda: call("tasks/list", {}))
        await measure(
            "tasks/list (first of several pages)", lambda: call("tasks/list", {"pageSize": 1})
        )
        await measure(
            "tasks/cancel (finished task: refused)",
            lambda: call("tasks/cancel", {"id": done["id"]}),
        )
        other = await call("message/send", send_params("ask again", blocking=False))
        (job,) = queue.jobs
        queue.jobs.clear()
        await app.runtime.worker.handle(job)
        await measure(
            "tasks/cancel (input-required task; TTL sweep)",
            lambda: call("tasks/cancel", {"id": other["id"]}),
        )

        async def resubscribe() -> None:
            body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/resubscribe"}
            response = await client.post("/", json={**body, "params": {"id": done["id"]}})
            assert response.status_code == 200

        await measure("tasks/resubscribe (finished task)", resubscribe)

    assert measured == EXPECTED, "measured:\n" + json.dumps(measured, indent=2)


# A blocking send on the in-process queue (the bench's functions, a dev setup): the turn runs in
# the request, and its worker claims it from the record the create committed (handoff.py).
BLOCKING_IN_PROCESS = [
    "TransactWriteItems",
    "UpdateItem",
    "UpdateItem",
    "UpdateItem",
]


async def test_a_blocking_send_on_the_in_process_queue(
    make_client: Callable[..., Any], dynamodb_store: DynamoDBStore
) -> None:
    store = dynamodb_store
    in_process = make_client(echo, store=store, queue=InProcessQueue(), push_notifications=False)
    async with in_process as (client, _):
        await rpc(client, "message/send", send_params("warm up"))
        with counting(store) as calls:
            data = await rpc(client, "message/send", send_params("hi"))
    assert data["result"]["status"]["state"] == "completed"
    assert calls == BLOCKING_IN_PROCESS, calls
