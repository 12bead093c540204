"""Races on the Firestore emulator with each app instance its own functions-framework servers.

Each instance is a deployment's two functions, each a real `functions-framework` server
(gunicorn + uvicorn) as in the other runtime tests (conftest.py `start_function`), built by
race_main.py: the A2A HTTP function (`--target a2a`) and the worker function (`--target
worker`). All four processes share one Firestore emulator database and collection prefix.
Each instance publishes its jobs to a Pub/Sub topic of its own (emulator), whose push
subscription feeds the *other* instance's worker function (with a dead-letter topic pushed to
that worker too, as conftest.py `create_job_topics` sets up every deployment's). What crosses
processes (tests/reliability/race_processes.py): the JSON-RPC calls (HTTP to an HTTP
function), the agents' gates and turn reports (HTTP to the driver), each process's ledger (a
file the driver merges), and the turns: a message or cancel taken by one instance's HTTP
function is run by the other instance's worker, after a trip through Pub/Sub; a task whose
messages arrive through both instances (the concurrent-messages scenario) has its turns run
by both workers; a nacked job comes back to the same worker with the subscription's back-off.

The driver drains by waiting until every job published so far (each function process records
what its queue published, race_main.py `PublishedJobs`) has been answered by a worker
function other than with a nack, as its log says; it redelivers by publishing every run-agent
job once more to the topic it first went to, and reads as dead letters the jobs a worker
abandoned (a dead-lettered message, or a failure on the last attempt).

The scenarios and checks are those of tests/reliability/races.py; docs/RELIABILITY.md
("Races", separate processes) has the figures. `A2A_RACE_ROUNDS` sets the cancel-vs-complete
rounds (default 250), `A2A_RACE_TASKS` the tasks of the concurrent-messages scenario (default
25). `-s` prints a summary line per scenario.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless.queue.base import RUN_AGENT, Job
from a2a_serverless.store import open_store
from a2a_serverless.store.base import Store
from a2a_serverless_gcp.pubsub import PubSubQueue
from tests.gcp.conftest import unique_prefix
from tests.reliability.race_processes import Processes, StartProcesses, processes
from tests.reliability.races import (
    WAIT_S,
    Deploy,
    cancel_vs_complete,
    concurrent_messages,
    driver_client,
    env_int,
    post_rpc,
)
from tests.support.server import free_port

from .conftest import (
    PROJECT,
    PUBSUB_MAX_DELIVERY_ATTEMPTS,
    FunctionServer,
    create_job_topics,
    start_function,
    stop_group,
)
from .race_main import PublishedJobs, published
from .test_load import worker_deliveries

pytestmark = pytest.mark.gcp

ROUNDS = env_int("A2A_RACE_ROUNDS", 250)
TASKS = env_int("A2A_RACE_TASKS", 25)
SOURCE = Path(__file__).resolve().parent / "race_main.py"
# How long the published jobs must stay all handled before a drain ends: a job a worker
# publishes is recorded just after Pub/Sub took it.
QUIET_S = 0.3


class GcpProcesses:
    """Two instances, each an HTTP function publishing to its topic and a worker function fed
    by the other instance's topic."""

    def __init__(
        self, https: list[FunctionServer], workers: list[FunctionServer], ledger_dir: Path
    ) -> None:
        self.https = https
        self.workers = workers
        self.ledger_dir = ledger_dir
        self.client = driver_client()
        self._dead: list[str] = []

    async def rpc(self, index: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return await post_rpc(self.client, f"{self.https[index].url}/", method, params)

    def unhandled(self) -> list[Job]:
        """The published jobs not yet answered (other than with a nack) as often as they were
        published."""
        jobs = published(self.ledger_dir)
        wanted = Counter(job.id for _, job in jobs)
        answered = Counter(
            delivery.job_id
            for worker in self.workers
            for delivery, outcome in worker_deliveries(worker)
            if outcome != "nacked"
        )
        pending = {job_id for job_id, count in wanted.items() if answered[job_id] < count}
        return [job for _, job in jobs if job.id in pending]

    async def drain(self) -> None:
        deadline = time.monotonic() + WAIT_S
        quiet_since: float | None = None
        while True:
            now = time.monotonic()
            pending = await asyncio.to_thread(self.unhandled)
            if pending:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = now
            elif now - quiet_since > QUIET_S:
                break
            if now > deadline:
                waiting = ", ".join(f"{job.kind} {job.task_id}" for job in pending[:10])
                raise TimeoutError(
                    f"{len(pending)} published jobs not handled in {WAIT_S} s: {waiting}"
                )
            await asyncio.sleep(0.1)
        self._dead = [
            f"{delivery.kind} {delivery.task_id}: {outcome}"
            for worker in self.workers
            for delivery, outcome in worker_deliveries(worker)
            if outcome in ("abandoned", "failed")
        ]

    async def redeliver(self) -> None:
        again: dict[str, tuple[str, Job]] = {}
        for topic, job in published(self.ledger_dir):
            if job.kind == RUN_AGENT:
                again.setdefault(job.id, (topic, job))
        for topic, job in again.values():
            # Recorded as the functions' publishes are, so the next drain waits for these too.
            await PublishedJobs(PubSubQueue(topic), topic, self.ledger_dir).enqueue(job)

    def dead_letters(self) -> list[str]:
        return list(self._dead)


@pytest.fixture
def deploy(
    pubsub_emulator: str, firestore_emulator: str, firestore_store_url: str, tmp_path: Path
) -> Deploy:
    @asynccontextmanager
    async def start(race_env: dict[str, str]) -> AsyncIterator[Processes]:
        secret = secrets.token_urlsafe(24)
        worker_ports = [free_port(), free_port()]
        # Topic i: what instance i publishes, pushed to the other instance's worker.
        topics = [
            create_job_topics(unique_prefix(), f"http://127.0.0.1:{worker_ports[1 - i]}/", secret)[
                0
            ]
            for i in range(2)
        ]

        def function(target: str, index: int, port: int | None = None) -> FunctionServer:
            env = {
                **race_env,
                "A2A_STORE_URL": firestore_store_url,
                "A2A_GCP_PROJECT": PROJECT,
                "A2A_PUBSUB_TOPIC": topics[index],
                "A2A_PUBSUB_MAX_DELIVERY_ATTEMPTS": str(PUBSUB_MAX_DELIVERY_ATTEMPTS),
                "A2A_WORKER_SECRET": secret,
            }
            ready = "/health" if target == "a2a" else "/"
            name = f"{target}-{'ab'[index]}"
            return start_function(target, env, tmp_path, ready, port, source=SOURCE, name=name)

        starting = [asyncio.to_thread(function, "a2a", i) for i in range(2)]
        starting += [asyncio.to_thread(function, "worker", i, worker_ports[i]) for i in range(2)]
        servers = await asyncio.gather(*starting, return_exceptions=True)
        try:
            started_servers = [s for s in servers if isinstance(s, FunctionServer)]
            for failed in servers:
                if isinstance(failed, BaseException):
                    raise failed
            https, workers = started_servers[:2], started_servers[2:]
            started = GcpProcesses(https, workers, Path(race_env["RACE_LEDGER_DIR"]))
            try:
                yield started
            finally:
                await started.client.aclose()
        finally:
            for server in servers:
                if isinstance(server, FunctionServer):
                    await asyncio.to_thread(stop_group, server.process)

    start_processes: StartProcesses = start

    def open_driver_store(_instance: int) -> Store:
        return open_store(firestore_store_url)

    return processes(start_processes, open_driver_store)


async def test_cancel_racing_completion(deploy: Deploy) -> None:
    result = await cancel_vs_complete(deploy, store="firestore-emulator", rounds=ROUNDS)
    print(result.summary())
    assert result.problems == []
    assert result.outcomes["canceled"] > 0 and result.outcomes["completed"] > 0, result.outcomes


async def test_concurrent_messages_to_one_task(deploy: Deploy) -> None:
    result = await concurrent_messages(deploy, store="firestore-emulator", tasks=TASKS)
    print(result.summary())
    assert result.problems == []
