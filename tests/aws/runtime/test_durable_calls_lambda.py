"""Durable calls on the AWS path: the orchestrator's HTTP and worker Lambda handlers in-process,
on DynamoDB Local and an SQS queue on moto; the agent it calls is one of ours on uvicorn.

The test plays Lambda's SQS event source mapping (receive, invoke the worker, delete what
succeeded) and API Gateway (the remote's callback reaches the HTTP handler as an HTTP API
event). A suspended turn leaves no message in flight but its `durable-check` job; the callback
(or that check, for the poll path) queues the turn again through SQS.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from a2a_serverless import Agent, Context, Settings, agent
from a2a_serverless.app import create_app
from a2a_serverless.queue.base import DURABLE_CHECK, RUN_AGENT, decode_job
from a2a_serverless.routepaths import CALLBACK_PREFIX
from a2a_serverless.store import open_store
from a2a_serverless.store.base import TaskRecord
from a2a_serverless.store.bookkeeping import durable_of
from a2a_serverless_aws import AwsSettings, SqsQueue, make_http_handler, make_worker_handler
from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import SqsTrigger, http_api_event, response_json
from tests.aws.runtime.inprocess import FakeContext, RecordingClient
from tests.integration.jsonrpc_agents import user_message
from tests.support.server import free_port

pytestmark = pytest.mark.aws

WAIT_S = 60.0


class Remote:
    """Our agent on uvicorn, its answer held by a gate the test opens."""

    def __init__(self, tmp: Path) -> None:
        self.gate = asyncio.Event()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"

        @agent(name="Worker", description="Upper-cases, when let through.")
        async def work(text: str) -> str:
            await self.gate.wait()
            return text.upper()

        self.app = create_app(
            work,
            Settings(
                store_url=f"sqlite:///{tmp / 'remote.db'}",
                dev_mode=True,
                push_notifications=False,
                poll_interval_s=0.05,
            ),
        )
        config = uvicorn.Config(
            self.app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on"
        )
        self.server = uvicorn.Server(config)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Remote]:
        task = asyncio.create_task(self.server.serve())
        while not self.server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        try:
            yield self
        finally:
            self.server.should_exit = True
            await asyncio.wait_for(task, 10)
            await self.app.runtime.aclose()


class Orchestrator:
    def __init__(self, runs: list[int]) -> None:
        self.runs = runs

    async def execute(self, context: Context, updater: Any) -> None:
        self.runs.append(1)
        await updater.start_work("planning")
        result = await context.call("worker", context.text)
        await updater.complete(f"worker said: {result.text}")


@contextlib.contextmanager
def lambda_handlers(
    orchestrator: Agent, store_url: str, signing_keys: str, queue_url: str, sqs: Any
) -> Iterator[tuple[Any, Any, RecordingClient]]:
    client = RecordingClient(sqs)
    values: dict[str, Any] = {
        "store_url": store_url,
        "dev_mode": True,
        "push_signing_keys": signing_keys,
        "public_url": "https://orchestrator.example.com",
        "worker_lease_s": 15.0,
        "push_timeout_s": 2.0,
        "poll_interval_s": 0.05,
        "durable_inline_wait_s": 0.2,
        "durable_poll_initial_s": 1.0,
        "durable_poll_max_s": 1.0,
    }
    http = make_http_handler(
        orchestrator,
        Settings(**values, blocking_timeout_s=0.0),
        AwsSettings(sqs_queue_url=queue_url, lambda_timeout_s=30),
        queue=SqsQueue(queue_url, client=client),
    )
    worker = make_worker_handler(
        orchestrator,
        Settings(**values),
        AwsSettings(sqs_queue_url=queue_url, lambda_timeout_s=10, lambda_timeout_margin_s=1),
        queue=SqsQueue(queue_url, client=client),
    )
    try:
        yield http, worker, client
    finally:
        http.close()
        worker.close()


async def read(store_url: str, task_id: str) -> TaskRecord:
    store = open_store(store_url)
    try:
        record = await store.get_task(task_id)
    finally:
        await store.close()
    assert record is not None
    return record


async def run_worker_until(
    trigger: SqsTrigger, done: Callable[[], Any], what: str, timeout_s: float = WAIT_S
) -> None:
    """Play the SQS event source (each poll in a thread, the test's loop free for the remote
    agent) until `done()` (awaited) holds."""
    try:
        async with asyncio.timeout(timeout_s):
            while not await done():
                await asyncio.to_thread(trigger.poll, 1)
    except TimeoutError:
        raise AssertionError(f"not reached in {timeout_s} s: {what}; {trigger.results}") from None


async def start_and_suspend(
    tmp_path: Path, store_url: str, signing_keys: str, queues: Queues, sqs: Any, remote: Remote
) -> Any:
    runs: list[int] = []
    orchestrator = Agent(
        name="Orchestrator",
        description="calls",
        executor=Orchestrator(runs),
        remote_agents={"worker": remote.url},
    )
    manager = lambda_handlers(orchestrator, store_url, signing_keys, queues.url, sqs)
    http, worker, client = await asyncio.to_thread(manager.__enter__)
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {"message": user_message("hello"), "configuration": {"blocking": False}},
    }
    response = await asyncio.to_thread(
        http, http_api_event("POST", "/", body), FakeContext(remaining_ms=30_000)
    )
    task_id: str = response_json(response)["result"]["id"]
    trigger = SqsTrigger(sqs, queues.url, lambda event: worker(event, FakeContext(10_000)))

    async def suspended() -> bool:
        turn = durable_of((await read(store_url, task_id)).internal)
        return turn is not None and turn.suspended and turn.pending_calls() != []

    await run_worker_until(trigger, suspended, "the turn suspended")
    return manager, http, client, trigger, task_id, runs


async def test_the_callback_through_the_http_function_resumes_the_turn_over_sqs(
    tmp_path: Path,
    store_url: str,
    signing_keys: str,
    sqs: Any,
    make_queues: Callable[..., Queues],
) -> None:
    queues = make_queues()
    async with Remote(tmp_path).running() as remote:
        manager, http, client, trigger, task_id, runs = await start_and_suspend(
            tmp_path, store_url, signing_keys, queues, sqs, remote
        )
        try:
            record = await read(store_url, task_id)
            assert record.claim is None and record.task.status.state.value == "working"
            op = next(iter(durable_of(record.internal).ops.values()))  # type: ignore[union-attr]
            kinds = [decode_job(r["MessageBody"]).kind for r in client.sent]
            assert kinds == [RUN_AGENT, DURABLE_CHECK]

            remote.gate.set()
            # The remote task ends; its notification reaches our HTTP function via API Gateway.
            path = f"{CALLBACK_PREFIX}{task_id}/{op.callback_id}"
            event = http_api_event(
                "POST",
                path,
                {"task": {"id": op.remote_task_id}},
                headers={"X-A2A-Notification-Token": op.callback_token or ""},
            )

            async def remote_done() -> bool:
                remote_record = await remote.app.runtime.store.get_task(op.remote_task_id or "")
                return remote_record is not None and remote_record.state == "completed"

            async with asyncio.timeout(WAIT_S):
                while not await remote_done():  # noqa: ASYNC110 - another server's store
                    await asyncio.sleep(0.02)
            answer = await asyncio.to_thread(http, event, FakeContext(remaining_ms=30_000))
            assert answer["statusCode"] == 202
            assert decode_job(client.sent[-1]["MessageBody"]).kind == RUN_AGENT

            async def completed() -> bool:
                return (await read(store_url, task_id)).state == "completed"

            await run_worker_until(trigger, completed, "the turn completed")
            record = await read(store_url, task_id)
            message = record.task.status.message
            assert message is not None
            assert message.parts[0].text == "worker said: HELLO"  # type: ignore[union-attr]
            op = next(iter(durable_of(record.internal).ops.values()))  # type: ignore[union-attr]
            assert op.resumed_by == "callback"
            assert len(runs) == 2
        finally:
            await asyncio.to_thread(manager.__exit__, None, None, None)


async def test_a_poll_job_on_sqs_resumes_the_turn(
    tmp_path: Path,
    store_url: str,
    signing_keys: str,
    sqs: Any,
    make_queues: Callable[..., Queues],
) -> None:
    queues = make_queues()
    async with Remote(tmp_path).running() as remote:
        manager, _, client, trigger, task_id, runs = await start_and_suspend(
            tmp_path, store_url, signing_keys, queues, sqs, remote
        )
        try:
            remote.gate.set()

            async def completed() -> bool:
                return (await read(store_url, task_id)).state == "completed"

            await run_worker_until(trigger, completed, "the turn completed")
            record = await read(store_url, task_id)
            op = next(iter(durable_of(record.internal).ops.values()))  # type: ignore[union-attr]
            assert op.resumed_by == "poll"
            assert len(runs) == 2
            assert DURABLE_CHECK in {decode_job(r["MessageBody"]).kind for r in client.sent}
        finally:
            await asyncio.to_thread(manager.__exit__, None, None, None)
