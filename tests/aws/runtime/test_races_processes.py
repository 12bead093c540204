"""Races on DynamoDB Local with each app instance its own awslambdaric runtimes.

Each instance is a deployment's two functions, each a `python -m awslambdaric` process on its
own local Runtime API (tests/aws/runtime/runtime_api.py), one invocation at a time as in
Lambda: the HTTP function (`race_functions.http_handler`) and the worker
(`race_functions.worker_handler`), with its own poller playing the SQS event source mapping
(receive up to 10 messages, invoke, delete what succeeded). All four processes share one
DynamoDB Local table and one SQS queue on the moto server. What crosses processes
(tests/reliability/race_processes.py): the JSON-RPC calls (Lambda invocations of an HTTP
function), the agents' gates and turn reports (HTTP to the driver), each process's ledger (a
file the driver merges), and the turns: every job goes through the shared queue, so whichever
worker receives it first runs it — the agent runs in a process other than the HTTP function
that took the message or the cancel, half the time in the other instance's worker. The driver
drains by waiting for the queue (and its delayed and in-flight messages) to empty, redelivers
by sending every run-agent job it saw to the queue again, and reads dead letters from the
dead-letter queue.

The scenarios and checks are those of tests/reliability/races.py; docs/RELIABILITY.md
("Races") has the figures. `A2A_RACE_ROUNDS` sets the cancel-vs-complete rounds (default 250),
`A2A_RACE_TASKS` the tasks of the concurrent-messages scenario (default 25). `-s` prints a
summary line per scenario.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless.queue.base import RUN_AGENT
from a2a_serverless.store import open_store
from a2a_serverless.store.base import Store
from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import http_api_event, response_json
from tests.aws.runtime.runtime_api import LambdaFunction
from tests.aws.runtime.test_lambda_e2e import HTTP_TIMING, WORKER_TIMING
from tests.aws.runtime.test_load import Pollers, RecordingTrigger
from tests.reliability.race_processes import Processes, StartProcesses, processes
from tests.reliability.races import (
    WAIT_S,
    Deploy,
    cancel_vs_complete,
    concurrent_messages,
    env_int,
    rpc_answer,
    rpc_request,
)

pytestmark = pytest.mark.aws

ROUNDS = env_int("A2A_RACE_ROUNDS", 250)
TASKS = env_int("A2A_RACE_TASKS", 25)
# Rounds in flight: each HTTP function takes one invocation at a time, so a round's cancel
# waits behind the sends and cancels of the rounds before it on the same function; more in
# flight would hold gated agents past the worker's time budget.
IN_FLIGHT = 8
# Blocking waits poll the table often, as in thread mode (races.INSTANCE_SETTINGS).
RACE_SETTINGS = {"A2A_POLL_INTERVAL_S": "0.02"}
# What the queue holds: waiting, received and not yet deleted, and sent with a delay.
DEPTH = [
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesNotVisible",
    "ApproximateNumberOfMessagesDelayed",
]


def depth(sqs: Any, url: str) -> int:
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=DEPTH)["Attributes"]
    return sum(int(attributes[name]) for name in DEPTH)


class LambdaProcesses:
    """Two instances, each an HTTP function and a worker polling the shared queue."""

    def __init__(
        self,
        https: list[LambdaFunction],
        triggers: list[RecordingTrigger],
        sqs: Any,
        queues: Queues,
    ) -> None:
        self.https = https
        self.triggers = triggers
        self.sqs = sqs
        self.queues = queues
        # Each HTTP function takes one invocation at a time; the others wait in its Runtime
        # API's queue, as invocations of a busy environment would wait for a free one.
        self.threads = ThreadPoolExecutor(64, "race-invoke")
        self._dead: list[str] = []

    async def rpc(self, index: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        event = http_api_event("POST", "/", rpc_request(method, params))
        loop = asyncio.get_running_loop()
        response = await loop.run_in_executor(self.threads, self.https[index].invoke, event)
        if response["statusCode"] != 200:
            return rpc_answer(response["statusCode"], str(response.get("body")))
        answer: dict[str, Any] = response_json(response)
        return answer

    async def drain(self) -> None:
        await asyncio.to_thread(self._wait_until_empty)
        self._dead = []
        while True:
            received = await asyncio.to_thread(
                self.sqs.receive_message,
                QueueUrl=self.queues.dlq_url,
                MaxNumberOfMessages=10,
                VisibilityTimeout=600,
            )
            messages = received.get("Messages", [])
            if not messages:
                break
            self._dead += [message["Body"] for message in messages]
        for trigger in self.triggers:
            self._dead += [
                f"worker invocation failed: {r.error}" for r in trigger.results if r.error
            ]
            self._dead += [f"{len(r.failed)} records failed" for r in trigger.results if r.failed]

    def _wait_until_empty(self) -> None:
        deadline = time.monotonic() + WAIT_S
        empty_since: float | None = None
        while True:
            now = time.monotonic()
            if depth(self.sqs, self.queues.url) != 0:
                empty_since = None
            elif empty_since is None:
                empty_since = now
            elif now - empty_since > 0.3:  # a job being sent as another is deleted
                return
            if now > deadline:
                raise TimeoutError(f"the queue did not empty in {WAIT_S} s")
            time.sleep(0.05)

    async def redeliver(self) -> None:
        bodies: dict[str, str] = {}
        for trigger in self.triggers:
            for record in trigger.records:
                job = json.loads(record["body"])
                if job["kind"] == RUN_AGENT:
                    bodies.setdefault(job["id"], record["body"])
        for body in bodies.values():
            await asyncio.to_thread(
                self.sqs.send_message, QueueUrl=self.queues.url, MessageBody=body
            )

    def dead_letters(self) -> list[str]:
        return list(self._dead)


@pytest.fixture
def deploy(
    tmp_path: Path,
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    store_url: str,
) -> Deploy:
    @asynccontextmanager
    async def start(race_env: dict[str, str]) -> AsyncIterator[Processes]:
        queues = make_queues(max_receive_count=3, visibility_timeout_s=4)
        env = {
            **function_env,
            **race_env,
            **RACE_SETTINGS,
            "A2A_SQS_QUEUE_URL": queues.url,
            "A2A_SQS_MAX_RECEIVE_COUNT": str(queues.max_receive_count),
        }

        def function(
            handler: str, timing: dict[str, str], timeout_s: float, name: str
        ) -> LambdaFunction:
            environment = {**env, **timing}
            return LambdaFunction(
                f"tests.aws.runtime.race_functions.{handler}",
                env=environment,
                log_dir=tmp_path,
                timeout_s=timeout_s,
                name=name,
            ).start()

        https: list[LambdaFunction] = []
        workers: list[LambdaFunction] = []
        try:
            for n in "ab":
                https.append(function("http_handler", HTTP_TIMING, 10, f"http-{n}"))
                workers.append(function("worker_handler", WORKER_TIMING, 4, f"worker-{n}"))
            triggers = [RecordingTrigger(sqs, queues.url, worker) for worker in workers]
            pollers = Pollers(triggers).start()
            started = LambdaProcesses(https, triggers, sqs, queues)
            try:
                yield started
            finally:
                await asyncio.to_thread(pollers.stop)
                started.threads.shutdown(wait=False, cancel_futures=True)
        finally:
            for f in https + workers:
                f.stop()
        assert not pollers.errors, pollers.errors

    start_processes: StartProcesses = start

    def open_driver_store(_instance: int) -> Store:
        return open_store(store_url)

    return processes(start_processes, open_driver_store)


async def test_cancel_racing_completion(deploy: Deploy) -> None:
    result = await cancel_vs_complete(
        deploy, store="dynamodb-local", rounds=ROUNDS, in_flight=IN_FLIGHT
    )
    print(result.summary())
    assert result.problems == []
    assert result.outcomes["canceled"] > 0 and result.outcomes["completed"] > 0, result.outcomes


async def test_concurrent_messages_to_one_task(deploy: Deploy) -> None:
    result = await concurrent_messages(deploy, store="dynamodb-local", tasks=TASKS)
    print(result.summary())
    assert result.problems == []
