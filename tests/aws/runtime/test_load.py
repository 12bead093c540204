"""Load: N tasks at once through the HTTP function, SQS and the worker Lambdas (issue 9, item 4).

The deployment: `HTTP_ENVIRONMENTS` execution environments of the HTTP function and
`WORKER_ENVIRONMENTS` of the worker, each a `python -m awslambdaric` process on its own local
Runtime API (tests/aws/runtime/runtime_api.py), one invocation at a time as in Lambda; the queue
and its dead-letter queue on the moto server; tasks in DynamoDB Local. The client sends
`A2A_LOAD_TASKS` non-blocking `message/send` (default `load.DEFAULT_TASKS`), at most
`load.CONCURRENCY` at once, each taken by the next free HTTP environment (as Lambda routes an
invocation to an idle environment). One poller thread per worker environment plays the event
source mapping: receive up to 10 messages, invoke, delete what succeeded. Every tenth task asks
for a webhook; those notifications go through the same queue and workers to a local receiver.

Then it checks with tests/reliability/load.py that every task completed exactly once and prints
the figures (`-s` shows the line).
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless.store import open_store
from a2a_serverless.store.base import TaskQuery
from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import SqsTrigger
from tests.aws.runtime.runtime_api import LambdaFunction
from tests.aws.runtime.test_lambda_e2e import call
from tests.push.webhook_server import WebhookServer
from tests.reliability import load

pytestmark = pytest.mark.aws

HTTP_ENVIRONMENTS = 4
WORKER_ENVIRONMENTS = 2
OWNER = "anonymous"  # no authentication configured: every caller is the anonymous one

# Production-like clocks: a 30 s worker whose turns get 27 s, a lease longer than the function's
# timeout, a visibility timeout no shorter than it (a redelivery in this run means a failure).
WORKER_TIMING = {
    "A2A_LAMBDA_TIMEOUT_S": "30",
    "A2A_LAMBDA_TIMEOUT_MARGIN_S": "3",
    "A2A_WORKER_LEASE_S": "60",
    "A2A_PUSH_TIMEOUT_S": "5",
    "A2A_SQS_VISIBILITY_TIMEOUT_S": "30",
}
HTTP_TIMING = {"A2A_LAMBDA_TIMEOUT_S": "10", "A2A_BLOCKING_TIMEOUT_S": "5"}


class RecordingTrigger(SqsTrigger):
    """The event source mapping, remembering every record it handed to the function."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.records: list[dict[str, Any]] = []

    def _invoke(self, event: dict[str, Any]) -> Any:
        self.records.extend(event["Records"])
        return super()._invoke(event)


class Pollers:
    """One thread per trigger, polling until stopped; what went wrong is kept, not raised."""

    def __init__(self, triggers: list[RecordingTrigger]) -> None:
        self.triggers = triggers
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(t,)) for t in triggers]

    def start(self) -> Pollers:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=90)

    def _run(self, trigger: RecordingTrigger) -> None:
        while not self._stop.is_set():
            try:
                trigger.poll(wait_s=1)
            except Exception as exc:  # a hung or broken invocation: report it, keep polling
                self.errors.append(f"{type(exc).__name__}: {exc}")


def queue_depth(sqs: Any, url: str) -> int:
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
    return sum(int(attributes[name]) for name in names)


def deliveries(records: list[dict[str, Any]]) -> list[load.Delivery]:
    jobs = [json.loads(record["body"]) for record in records]
    return [load.Delivery(job["id"], job["kind"], job["taskId"]) for job in jobs]


async def test_tasks_at_once_through_sqs_and_the_worker_lambdas_complete_exactly_once(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    store_url: str,
    runs_dir: Path,
) -> None:
    count = load.TASKS
    queues = make_queues(max_receive_count=3, visibility_timeout_s=30)
    env = {
        **function_env,
        "A2A_SQS_QUEUE_URL": queues.url,
        "A2A_SQS_MAX_RECEIVE_COUNT": str(queues.max_receive_count),
    }
    https = [
        make_function("http_handler", {**env, **HTTP_TIMING}, timeout_s=10, name=f"http{i}")
        for i in range(HTTP_ENVIRONMENTS)
    ]
    workers = [
        make_function("worker_handler", {**env, **WORKER_TIMING}, timeout_s=30, name=f"worker{i}")
        for i in range(WORKER_ENVIRONMENTS)
    ]
    idle: queue.Queue[LambdaFunction] = queue.Queue()
    for function in https:
        idle.put(function)

    def invoke(method: str, params: dict[str, Any]) -> Any:
        function = idle.get()  # the next idle environment, as Lambda routes an invocation
        try:
            return call(function, method, params)
        finally:
            idle.put(function)

    triggers = [RecordingTrigger(sqs, queues.url, worker) for worker in workers]
    pollers = Pollers(triggers).start()
    receiver = await WebhookServer().start()
    store = open_store(store_url)
    loop = asyncio.get_running_loop()
    context_id = load.new_context_id()
    meter = load.CpuMeter(
        {
            "HTTP function": load.Processes(pids=[_pid(f) for f in https]),
            "worker": load.Processes(pids=[_pid(f) for f in workers]),
            "DynamoDB Local": load.Processes(pids=load.children("DynamoDBLocal.jar")),
            "moto (SQS)": load.Processes(pids=load.children("moto.server")),
        }
    )
    load_before = os.getloadavg()[0]
    threads = ThreadPoolExecutor(max_workers=load.CONCURRENCY)
    try:

        async def send(index: int) -> dict[str, Any]:
            url = receiver.url() if load.wants_webhook(index) else None
            params = load.send_params(index, context_id, url)
            task: dict[str, Any] = await loop.run_in_executor(
                threads, invoke, "message/send", params
            )
            return task

        sent = await load.send_all(send, count, load.CONCURRENCY)

        async def unfinished() -> str | None:
            pages = await load.gather_limited(
                partial(
                    store.list_tasks,
                    TaskQuery(owner=OWNER, context_id=context_id, state=state, limit=1),
                )
                for state in load.TERMINAL_STATES
            )
            ended = sum(page.total_size for page in pages)
            return None if ended >= count else f"{ended} of {count} tasks ended"

        webhooks = sum(s.webhook for s in sent)

        async def undelivered() -> str | None:
            distinct = len({r.notification_id for r in receiver.notifications()})
            return None if distinct >= webhooks else f"{distinct} of {webhooks} webhooks"

        async def undrained() -> str | None:
            depth = await asyncio.to_thread(queue_depth, sqs, queues.url)
            return None if depth == 0 else f"{depth} messages still on the queue"

        timeout_s = load.wait_timeout_s(count)
        await load.wait_until(unfinished, timeout_s)
        await load.wait_until(undelivered, timeout_s)
        await load.wait_until(undrained, 60)

        async def list_page(token: str) -> dict[str, Any]:
            params = {"contextId": context_id, "pageSize": 100}
            if token:
                params["pageToken"] = token
            page: dict[str, Any] = await loop.run_in_executor(threads, invoke, "tasks/list", params)
            return page

        listed = await load.list_all(list_page)
        cpu_s = meter.used()
        logs = await load.gather_limited(partial(store.read_events, s.task_id) for s in sent)
    finally:
        # After a failure, sends still queued are dropped rather than waited for.
        threads.shutdown(wait=False, cancel_futures=True)
        pollers.stop()
        await receiver.stop()
        await store.close()

    records = [record for trigger in triggers for record in trigger.records]
    polls = [poll for trigger in triggers for poll in trigger.results]
    problems = list(pollers.errors)
    problems += [f"worker invocation failed: {p.error}" for p in polls if p.error]
    problems += [f"{len(p.failed)} records failed in a batch" for p in polls if p.failed]
    observed = load.Observed(
        events={s.task_id: events for s, events in zip(sent, logs, strict=True)},
        runs={s.task_id: _runs(runs_dir, s.task_id) for s in sent},
        listed=listed,
        notifications=[load.notification_of(r.headers, r.body) for r in receiver.notifications()],
        deliveries=deliveries(records),
        worker_invocations=len(polls),
        dead_lettered=queue_depth(sqs, queues.dlq_url),
        problems=problems,
    )
    problems = load.check(sent, observed)
    assert not problems, "\n".join(problems[:50])
    summary = load.report(
        "aws",
        sent,
        observed,
        concurrency=load.CONCURRENCY,
        cpu_s=cpu_s,
        load_before=load_before,
    )
    print(f"\n{summary.line()}")


def _pid(function: LambdaFunction) -> int:
    assert function.process is not None
    return function.process.pid


def _runs(runs_dir: Path, task_id: str) -> int:
    path = runs_dir / task_id
    return path.read_text().count("run ") if path.exists() else 0
