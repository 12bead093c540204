"""Faults on Google Cloud, with real processes and real signals: the worker function's server
(functions-framework: gunicorn and its uvicorn worker) SIGKILLed while Pub/Sub waits for the
answer to its pushes, with turns stopped at each point of their work.

The deployment is this test's own (the session's `deployment` runs another agent): the HTTP
function and the worker function run `tests.reliability.faults.faulty` from a main.py written
here, on the session's Pub/Sub and Firestore emulators. Pushes are made by `PushRelay`, as
Pub/Sub's push delivery makes them: it pulls each message from a subscription and POSTs it to the
worker in Pub/Sub's push format, each on its own connection, acking on 2xx and nacking anything
else (an error status, a connection reset by the kill, a refused connection while the worker is
down), so Pub/Sub delivers it again. (With the emulator's own push loop, pushes cut by the kill
did not come back for over 90 s in some runs, after a few refused connections.) After the kill
the test starts the worker again on the same port, as Cloud Run starts a new instance.

The rule checked is the one tests/aws/runtime/test_faults.py states: the dead run's events
stay, the turn runs again from its start after the dead worker's lease, its artifact replaces
the dead run's partial one, one terminal event, and a turn killed after `completed` is not run
again.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import os
import secrets
import signal
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_serverless.models import TaskArtifactUpdateEvent, TaskStatusUpdateEvent
from a2a_serverless.store.base import TaskEvent
from tests.gcp.conftest import unique_prefix
from tests.gcp.runtime.conftest import (
    PROJECT,
    REPO,
    FunctionServer,
    http_status,
    port_open,
    start_process,
    stop_group,
    wait_until,
)
from tests.reliability.faults import artifact_texts, log_problems
from tests.support.server import free_port

pytestmark = pytest.mark.gcp

MAIN = """\
from a2a_serverless_gcp import http_function, worker_function
from tests.reliability.faults import faulty

a2a = http_function(faulty)
worker = worker_function(faulty)
"""
POINTS = ("claimed", "working", "partial", "streamed", "completed")
CHUNKS = 3
ANSWER = "".join(f"chunk {i} " for i in range(CHUNKS))
ONE_RUN = ["working", "working", "artifact", "artifact+", "artifact+", "artifact+!", "completed"]
WRITTEN_AT = {"claimed": 0, "working": 2, "partial": 3, "streamed": 6, "completed": 7}
# Deliveries that fail while the worker is down or its dead predecessor's lease holds count
# as attempts: keep the worker's idea of the last one well above what this test needs.
MAX_DELIVERY_ATTEMPTS = 30


class PushRelay:
    """Pub/Sub push delivery for the test: pull, POST in the push format, ack or nack."""

    def __init__(self, subscriber: Any, subscription: str, url: str) -> None:
        self.subscriber = subscriber
        self.subscription = subscription
        self.url = url
        self.stop = threading.Event()
        self.outcomes: collections.Counter[str] = collections.Counter()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> PushRelay:
        self._thread.start()
        return self

    def close(self) -> None:
        self.stop.set()
        self._thread.join(30)

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                response = self.subscriber.pull(
                    request={"subscription": self.subscription, "max_messages": 10}, timeout=2
                )
            except Exception:  # a pull that found nothing in time
                continue
            for received in response.received_messages:
                threading.Thread(target=self._push, args=(received,), daemon=True).start()

    def _push(self, received: Any) -> None:
        message = received.message
        body = {
            "message": {
                "data": base64.b64encode(message.data).decode(),
                "attributes": dict(message.attributes),
                "messageId": message.message_id,
            },
            "subscription": self.subscription,
            "deliveryAttempt": received.delivery_attempt or None,
        }
        try:
            answer = httpx.post(self.url, json=body, timeout=60)
            outcome = f"{answer.status_code}"
            acked = 200 <= answer.status_code < 300
        except httpx.HTTPError as error:
            outcome, acked = type(error).__name__, False
        self.outcomes[outcome] += 1
        request = {"subscription": self.subscription, "ack_ids": [received.ack_id]}
        if acked:
            self.subscriber.acknowledge(request=request)
        else:
            self.subscriber.modify_ack_deadline(request={**request, "ack_deadline_seconds": 0})


@dataclass
class Stack:
    http: FunctionServer
    worker: FunctionServer
    main: Path
    env: dict[str, str]
    log_dir: Path
    runs_dir: Path
    relay: PushRelay
    starts: int = 1

    def restart_worker(self) -> None:
        """SIGKILL the worker's server (gunicorn and its worker: the process group), then a new
        instance on the same port (the push endpoint)."""
        os.killpg(self.worker.process.pid, signal.SIGKILL)
        self.worker.process.wait(10)
        deadline = time.monotonic() + 30
        while port_open(self.worker.port):
            assert time.monotonic() < deadline, "the killed worker's port stays open"
            time.sleep(0.1)
        self.starts += 1
        log_path = self.log_dir / f"worker-{self.starts}.log"
        self.worker = start_server("worker", self.main, self.env, log_path, self.worker.port, "/")


def start_server(
    target: str, main: Path, env: dict[str, str], log_path: Path, port: int, ready: str
) -> FunctionServer:
    """`functions-framework --target <target> --source <main>` on `port`, once `ready` answers."""
    args = [sys.executable, "-m", "functions_framework", "--target", target]
    args += ["--source", str(main), "--host", "127.0.0.1", "--port", str(port)]
    # A worktree's own adapters over the editable install's (as conftest.py does).
    python_path = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    full_env = {**os.environ, **env, "PYTHONPATH": python_path, "PYTHONUNBUFFERED": "1"}
    process = start_process(args, log_path, full_env)
    server = FunctionServer(target, port, process, log_path)
    wait_until(
        lambda: http_status(f"{server.url}{ready}") is not None,
        process,
        f"functions-framework --target {target}",
        log_path,
    )
    return server


@pytest.fixture
def stack(pubsub_emulator: str, firestore_emulator: str, tmp_path: Path) -> Iterator[Stack]:
    from google.cloud import pubsub_v1

    suffix = unique_prefix()
    secret = secrets.token_urlsafe(24)
    worker_port = free_port()
    worker_url = f"http://127.0.0.1:{worker_port}/"
    publisher = pubsub_v1.PublisherClient()
    subscriber = pubsub_v1.SubscriberClient()
    topic = publisher.topic_path(PROJECT, f"fault-jobs-{suffix}")
    publisher.create_topic(name=topic)
    subscription = subscriber.subscription_path(PROJECT, f"fault-worker-{suffix}")
    subscriber.create_subscription(
        request={"name": subscription, "topic": topic, "ack_deadline_seconds": 60}
    )
    main = tmp_path / "main.py"
    main.write_text(MAIN)
    runs_dir = tmp_path / "runs"
    runs_dir.mkdir()
    env = {
        "A2A_STORE_URL": f"firestore://{PROJECT}/(default)?prefix={suffix}",
        "A2A_GCP_PROJECT": PROJECT,
        "A2A_PUBSUB_TOPIC": topic,
        "A2A_PUBSUB_MAX_DELIVERY_ATTEMPTS": str(MAX_DELIVERY_ATTEMPTS),
        "A2A_WORKER_SECRET": secret,
        "A2A_DEV_MODE": "true",
        "A2A_POLL_INTERVAL_S": "0.1",
        # A dead worker's turn is taken over 3 s after its last write.
        "A2A_WORKER_LEASE_S": "3",
        "TEST_RUNS_DIR": str(runs_dir),
    }
    worker = start_server("worker", main, env, tmp_path / "worker-1.log", worker_port, "/")
    relay = PushRelay(subscriber, subscription, f"{worker_url}?token={secret}").start()
    made: Stack | None = None
    try:
        http = start_server("a2a", main, env, tmp_path / "a2a.log", free_port(), "/health")
        made = Stack(http, worker, main, env, tmp_path, runs_dir, relay)
        yield made
    finally:
        relay.close()
        stop_group(worker.process)
        if made is not None:
            stop_group(made.http.process)
            stop_group(made.worker.process)


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=stack.http.url, timeout=30) as opened:
        yield opened


async def rpc(client: httpx.AsyncClient, method: str, params: dict[str, Any]) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    response = await client.post("/", json=body)
    assert response.status_code == 200, response.text
    data = response.json()
    assert "result" in data, data
    return data["result"]


def shape(events: list[TaskEvent]) -> list[str]:
    kinds = []
    for event in events:
        payload = event.payload
        if isinstance(payload, TaskStatusUpdateEvent):
            kinds.append(payload.status.state.value)
        else:
            assert isinstance(payload, TaskArtifactUpdateEvent)
            kinds.append(
                "artifact" + ("+" if payload.append else "") + ("!" if payload.last_chunk else "")
            )
    return kinds


async def test_worker_server_killed_at_each_point_of_a_turn_completes_every_task_once(
    stack: Stack, client: httpx.AsyncClient
) -> None:
    from a2a_serverless_gcp.firestore import open_firestore_store

    store = open_firestore_store(stack.env["A2A_STORE_URL"])
    tasks: dict[str, str] = {}
    for point in POINTS:
        message = {
            "kind": "message",
            "role": "user",
            "messageId": uuid.uuid4().hex,
            "parts": [{"kind": "text", "text": f"stop {point} {CHUNKS}"}],
        }
        params = {"message": message, "configuration": {"blocking": False}}
        tasks[point] = (await rpc(client, "message/send", params))["id"]

    def at_stops() -> list[str]:
        return [p for p in POINTS if (stack.runs_dir / f"{tasks[p]}.at-{p}").exists()]

    async def all_ended() -> bool:
        for task_id in tasks.values():
            record = await store.get_task(task_id)
            if record is None or not record.task.status.state.is_terminal:
                return False
        return True

    stopped: dict[str, list[TaskEvent]] = {}
    kills = 0
    began = time.monotonic()
    try:
        while len(stopped) < len(POINTS):
            deadline = time.monotonic() + 90
            while not any(p not in stopped for p in at_stops()):
                assert time.monotonic() < deadline, f"no turn at its stop\n{stack.worker.tail()}"
                await asyncio.sleep(0.1)
            seen = at_stops()
            await asyncio.sleep(1.0)  # kill when no other turn is about to reach its stop
            if at_stops() != seen:
                continue
            for point in seen:
                if point in stopped:
                    continue
                record = await store.get_task(tasks[point])
                assert record is not None
                events = await store.read_events(tasks[point])
                assert shape(events) == ["submitted", *ONE_RUN[: WRITTEN_AT[point]]], point
                assert (record.claim is None) == (point == "completed"), point
                stopped[point] = events
            await asyncio.to_thread(stack.restart_worker)  # SIGKILL, then a new instance
            kills += 1
        deadline = time.monotonic() + 120
        while not await all_ended():
            assert time.monotonic() < deadline, f"tasks did not end\n{stack.worker.tail()}"
            await asyncio.sleep(0.2)
        elapsed_s = time.monotonic() - began

        for point, task_id in tasks.items():
            record = await store.get_task(task_id)
            assert record is not None
            events = await store.read_events(task_id)
            assert log_problems(record, events) == [], point
            assert record.task.status.state.value == "completed", point
            before = stopped[point]
            assert [e.payload.model_dump() for e in events[: len(before)]] == [
                e.payload.model_dump() for e in before
            ], point
            rerun = point != "completed"
            assert shape(events[len(before) :]) == (ONE_RUN if rerun else []), point
            runs = (stack.runs_dir / task_id).read_text().count("run")
            assert runs == (2 if rerun else 1), point
            assert artifact_texts(record.task) == [ANSWER], point
        print(
            f"\nGCP kill points: {kills} SIGKILL(s) of the worker server; all completed "
            f"{elapsed_s:.1f} s after the first send; pushes by answer {dict(stack.relay.outcomes)}"
        )
    finally:
        await store.close()
