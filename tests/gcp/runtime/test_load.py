"""Load: N tasks at once through the HTTP function, Pub/Sub and the worker function (issue 9,
item 4).

A deployment of its own (`deploy()` of conftest.py: both functions as real functions-framework
servers, a Pub/Sub topic whose push subscription feeds the worker, a dead-letter topic, a
Cloud Tasks queue for webhooks, a Firestore prefix), with a production-like lease instead of the
shared deployment's 1 s. The client sends `A2A_LOAD_TASKS` non-blocking `message/send` (default
`load.DEFAULT_TASKS`), at most `load.CONCURRENCY` at once; every tenth asks for a webhook.

Deliveries are counted from the worker's log lines (one per request it answers: done, nacked,
failed, queued again, abandoned), the agent's runs from the file it appends each turn's text to.
Then tests/reliability/load.py checks that every task completed exactly once and prints the
figures (`-s` shows the line).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator
from functools import partial
from typing import Any

import httpx
import pytest

from a2a_serverless.store.base import TaskQuery
from a2a_serverless_gcp.firestore import open_firestore_store
from tests.push.webhook_server import WebhookServer
from tests.reliability import load

from .conftest import Deployment, FunctionServer, deploy
from .test_functions_e2e import rpc

pytestmark = pytest.mark.gcp

SEND_ATTEMPTS = 3
OWNER = "anonymous"  # no authentication configured: every caller is the anonymous one
# A lease longer than any turn here: a job delivered twice while its turn runs waits for the
# turn instead of taking it over (the shared deployment's 1 s lease is for its crash test).
OVERRIDES = {"A2A_WORKER_LEASE_S": "60"}
# What the worker logs for each request it answers (delivery.py `_run` and `_later`).
DELIVERY_LINE = re.compile(
    r"^job (?P<id>[\w-]+) \((?P<kind>[\w-]+)\) "
    r"(?P<outcome>from \S+ done|nacked|failed on|queued again|abandoned)"
)


@pytest.fixture(scope="module")
def load_deployment(
    pubsub_emulator: str,
    cloud_tasks_emulator: str,
    firestore_emulator: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Deployment]:
    log_dir = tmp_path_factory.mktemp("load-functions")
    with deploy(cloud_tasks_emulator, log_dir, OVERRIDES) as deployed:
        yield deployed


def worker_deliveries(worker: FunctionServer) -> list[tuple[load.Delivery, str]]:
    """Each request the worker function answered: the job, and what became of it (done,
    nacked, failed, queued [again], abandoned)."""
    found = []
    for line in worker.log_lines():
        match = DELIVERY_LINE.match(str(line.get("message", "")))
        if match is None:
            continue
        task_id = line.get("logging.googleapis.com/labels", {}).get("task_id", "")
        delivery = load.Delivery(match["id"], match["kind"], task_id)
        outcome = match["outcome"]
        found.append((delivery, "done" if outcome.endswith("done") else outcome.split()[0]))
    return found


async def test_tasks_at_once_through_pubsub_and_the_worker_function_complete_exactly_once(
    load_deployment: Deployment,
) -> None:
    deployment = load_deployment
    count = load.TASKS
    url = deployment.http.url + "/"
    context_id = load.new_context_id()
    receiver = await WebhookServer().start()
    store = open_firestore_store(deployment.env["A2A_STORE_URL"])
    meter = load.CpuMeter(
        {
            "HTTP function": load.Processes(groups=[deployment.http.process.pid]),
            "worker": load.Processes(groups=[deployment.worker.process.pid]),
            "Firestore emulator": load.Processes(groups=load.children("firestore")),
            "Pub/Sub emulator": load.Processes(groups=load.children("pubsub")),
            "Cloud Tasks emulator": load.Processes(groups=load.children("gcloud_tasks_emulator")),
        }
    )
    retried: list[int] = []
    load_before = os.getloadavg()[0]
    # The client lets an idle connection go after 1 s, before the server does (gunicorn's
    # keep-alive is 2 s): otherwise a request sent as the server closes the connection fails
    # with ReadError (the keep-alive race; it ended 3 of 3 runs of 1000 tasks here). On a very
    # busy machine the race can still happen: `send` then sends again.
    limits = httpx.Limits(max_connections=load.CONCURRENCY, keepalive_expiry=1)
    try:
        async with httpx.AsyncClient(timeout=60, limits=limits) as client:

            async def send(index: int) -> dict[str, Any]:
                webhook = receiver.url() if load.wants_webhook(index) else None
                params = load.send_params(index, context_id, webhook)
                for attempt in range(1, SEND_ATTEMPTS + 1):
                    try:
                        return await rpc(client, url, "message/send", params)
                    except (httpx.ReadError, httpx.RemoteProtocolError):
                        # The connection dropped: send the same message again, as a client
                        # would. Safe: the kit answers a repeated messageId with the same task
                        # (and the checks would see a second one).
                        if attempt == SEND_ATTEMPTS:
                            raise
                        retried.append(index)
                raise AssertionError("unreachable")

            sent = await load.send_all(send, count, load.CONCURRENCY)

            async def unfinished() -> str | None:
                ended = 0
                for state in load.TERMINAL_STATES:
                    query = TaskQuery(owner=OWNER, context_id=context_id, state=state, limit=1)
                    ended += (await store.list_tasks(query)).total_size
                return None if ended >= count else f"{ended} of {count} tasks ended"

            webhooks = sum(s.webhook for s in sent)

            async def undelivered() -> str | None:
                distinct = len({r.notification_id for r in receiver.notifications()})
                return None if distinct >= webhooks else f"{distinct} of {webhooks} webhooks"

            async def unanswered() -> str | None:
                # The receiver has a webhook before the worker logs that its job is done.
                answered = len(worker_deliveries(deployment.worker))
                expected = count + webhooks
                return None if answered >= expected else f"{answered} of {expected} logged"

            timeout_s = load.wait_timeout_s(count)
            await load.wait_until(unfinished, timeout_s)
            await load.wait_until(undelivered, timeout_s)
            await load.wait_until(unanswered, 60)

            async def list_page(token: str) -> dict[str, Any]:
                params: dict[str, Any] = {"contextId": context_id, "pageSize": 100}
                if token:
                    params["pageToken"] = token
                return await rpc(client, url, "tasks/list", params)

            listed = await load.list_all(list_page)
            cpu_s = meter.used()
        logs = await load.gather_limited(partial(store.read_events, s.task_id) for s in sent)
    finally:
        await receiver.stop()
        await store.close()

    runs = Counter(deployment.runs_file.read_text().splitlines())
    deliveries = worker_deliveries(deployment.worker)
    mine = {s.task_id for s in sent}
    ours = [(d, outcome) for d, outcome in deliveries if d.task_id in mine]
    outcomes = Counter(outcome for _, outcome in ours)
    problems = []
    if outcomes["failed"]:
        problems.append(f"{outcomes['failed']} deliveries failed: {deployment.worker.tail()}")
    observed = load.Observed(
        events={s.task_id: events for s, events in zip(sent, logs, strict=True)},
        runs={s.task_id: runs[f"{context_id} {s.index}"] for s in sent},
        listed=listed,
        notifications=[load.notification_of(r.headers, r.body) for r in receiver.notifications()],
        deliveries=[d for d, _ in ours],
        worker_invocations=len(ours),
        dead_lettered=outcomes["abandoned"],
        problems=problems,
    )
    problems = load.check(sent, observed)
    assert not problems, "\n".join(problems[:50])
    summary = load.report(
        "gcp",
        sent,
        observed,
        concurrency=load.CONCURRENCY,
        cpu_s=cpu_s,
        load_before=load_before,
    )
    print(f"\n{summary.line()} [worker answers: {dict(outcomes)}; sends retried: {len(retried)}]")
