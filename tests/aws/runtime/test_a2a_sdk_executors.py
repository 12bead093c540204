"""a2a-sdk AgentExecutors (tests/a2a_sdk: the sample-style ones, a2a-sdk 0.3.x) on the AWS path:
the HTTP function and the SQS-triggered worker under the real Lambda runtime client, SQS on a
moto server, tasks in DynamoDB Local. The scenarios are tests/a2a_sdk/scenarios.py's; here the
cancel reaches the executor from another process (the HTTP function writes it, the worker
reads it within its poll interval) and the canceled task's webhook is signed and delivered.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.a2a_sdk import scenarios
from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import SqsTrigger, http_api_event, response_json
from tests.aws.runtime.runtime_api import LambdaFunction
from tests.push.webhook_server import WebhookServer

pytestmark = pytest.mark.aws

HANDLERS = "tests.a2a_sdk.aws_functions"
# The worker may run a turn for 20 s (the slow sample waits a minute unless canceled); its
# lease and the queue's visibility outlast that.
WORKER_TIMING = {
    "A2A_LAMBDA_TIMEOUT_S": "20",
    "A2A_LAMBDA_TIMEOUT_MARGIN_S": "1",
    "A2A_WORKER_LEASE_S": "25",
    "A2A_PUSH_TIMEOUT_S": "2",
    "A2A_SQS_VISIBILITY_TIMEOUT_S": "20",
}
HTTP_TIMING = {"A2A_LAMBDA_TIMEOUT_S": "10", "A2A_BLOCKING_TIMEOUT_S": "5"}


class AwsDeployment:
    def __init__(self, http: LambdaFunction, trigger: SqsTrigger, log: Path) -> None:
        self.http = http
        self.trigger = trigger
        self.log = log
        self._poll: asyncio.Task[Any] | None = None

    async def rpc(self, method: str, params: Any, *, version: str = "0.3") -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        event = http_api_event("POST", "/", body, {"A2A-Version": version})
        response = await asyncio.to_thread(self.http.invoke, event)
        assert response["statusCode"] == 200, response
        payload: dict[str, Any] = response_json(response)
        return payload

    async def pump(self) -> None:
        """Play SQS's event source: one poll at a time, in the background (a worker
        invocation lasts as long as its turn; the test goes on meanwhile)."""
        if self._poll is None or self._poll.done():
            if self._poll is not None:
                self._poll.result()
            self._poll = asyncio.create_task(asyncio.to_thread(self.trigger.poll, 0))
        await asyncio.sleep(0.1)

    async def drain(self) -> None:
        if self._poll is not None:
            await self._poll


@pytest.fixture
def functions(
    function_env: dict[str, str],
    make_queues: Any,
    sqs: Any,
    tmp_path: Path,
) -> Iterator[tuple[LambdaFunction, LambdaFunction, Queues, Path]]:
    queues: Queues = make_queues(visibility_timeout_s=20)
    log = tmp_path / "executors.log"
    env = {
        **function_env,
        "A2A_SQS_QUEUE_URL": queues.url,
        "A2A_SQS_MAX_RECEIVE_COUNT": str(queues.max_receive_count),
        "SDK_TEST_LOG": str(log),
    }
    http = LambdaFunction(
        f"{HANDLERS}.http_handler",
        env={**env, **HTTP_TIMING},
        log_dir=tmp_path,
        timeout_s=10,
        name="sdk-http",
    )
    worker = LambdaFunction(
        f"{HANDLERS}.worker_handler",
        env={**env, **WORKER_TIMING},
        log_dir=tmp_path,
        timeout_s=20,
        name="sdk-worker",
    )
    started = []
    try:
        started.append(http.start())
        started.append(worker.start())
        yield http, worker, queues, log
    finally:
        for function in started:
            function.stop()


@pytest.fixture
async def aws(
    functions: tuple[LambdaFunction, LambdaFunction, Queues, Path], sqs: Any
) -> AsyncIterator[AwsDeployment]:
    http, worker, queues, log = functions
    deployment = AwsDeployment(http, SqsTrigger(sqs, queues.url, worker), log)
    try:
        yield deployment
    finally:
        await deployment.drain()


async def test_sample_executors_through_lambda_and_sqs(aws: AwsDeployment) -> None:
    await scenarios.echo_answers_with_a_message(aws)
    await scenarios.a_raising_executor_fails_the_task(aws)
    await scenarios.multi_turn_asks_then_answers(aws)
    await scenarios.streamed_chunks_make_one_artifact(aws)


async def test_cancel_from_the_http_function_stops_the_worker_and_is_pushed(
    aws: AwsDeployment,
) -> None:
    receiver = await WebhookServer().start()
    try:
        config = {"pushNotificationConfig": {"url": receiver.url(), "token": "aws-tok"}}
        task = await scenarios.send(aws, "slow job", config=config)
        await scenarios.until(aws, task["id"], scenarios.state_is("working"))
        response = await aws.rpc("tasks/cancel", {"id": task["id"]})
        assert scenarios.result(response)["status"]["state"] == "canceled"
        await scenarios.wait_for_lines(
            aws.log, [f"execute-cancelled {task['id']}", f"cancel {task['id']} slow working"]
        )
        # The worker's invocation ends with the canceled turn (long before its 20 s), and the
        # canceled task's notification goes out through the queue.
        for _ in range(100):
            if any(
                json.loads(n.body)["status"]["state"] == "canceled"
                for n in receiver.notifications()
            ):
                break
            await aws.pump()
        (notification,) = receiver.notifications()
        assert json.loads(notification.body)["status"]["state"] == "canceled"
        assert notification.headers["x-a2a-notification-token"] == "aws-tok"
        await aws.drain()
        assert all(r.error is None and not r.crashed for r in aws.trigger.results)
    finally:
        await receiver.stop()
