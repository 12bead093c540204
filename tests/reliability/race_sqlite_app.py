"""One SQLite race process: `uvicorn --factory tests.reliability.race_sqlite_app:app`.

The A2A app (`create_app`, as `a2a-serverless dev` serves it) on a `SqliteStore` on
RACE_SQLITE_PATH, wrapped in the process's ledger (race_instance.py), serving the scenario's
agent. Its queue hands every job to the other process (RACE_PEER_URL): POST /race/jobs there
puts it in that process's worker (an `InProcessQueue`), so the agent always runs in the other
process, as in thread mode. The driver's controls:

    POST /race/drain        answered once this process's worker has nothing queued or running
    POST /race/redeliver    every run-agent job this process queued, handed off once more
    GET  /race/dead-letters this worker's dead letters, one per line
"""

from __future__ import annotations

import os
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from a2a_serverless import Settings, create_app
from a2a_serverless.queue.base import Job, decode_job, encode_job
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless.store import SqliteStore
from tests.reliability.race_instance import ledger_store, race_agent
from tests.reliability.races import INSTANCE_SETTINGS, WAIT_S, WORKER_CONCURRENCY, HandOff


def app() -> Any:
    peer = os.environ["RACE_PEER_URL"].rstrip("/")
    peer_client = httpx.AsyncClient(timeout=WAIT_S)

    async def hand_off(job: Job, delay_s: float) -> None:
        body = {"job": encode_job(job).decode(), "delayS": delay_s}
        response = await peer_client.post(f"{peer}/race/jobs", json=body)
        response.raise_for_status()

    outbox = HandOff(hand_off)
    store = ledger_store(SqliteStore(os.environ["RACE_SQLITE_PATH"]))
    a2a = create_app(
        race_agent(),
        Settings(**INSTANCE_SETTINGS),
        store=store,
        queue=outbox,
        push_notifications=False,
    )
    inbox = InProcessQueue(a2a.runtime.jobs, concurrency=WORKER_CONCURRENCY)

    async def jobs(request: Request) -> Response:
        sent = await request.json()
        await inbox.enqueue(decode_job(sent["job"]), delay_s=float(sent["delayS"]))
        return Response(status_code=204)

    async def drain(request: Request) -> Response:
        await inbox.drain()
        return Response(status_code=204)

    async def redeliver(request: Request) -> Response:
        await outbox.redeliver()
        return Response(status_code=204)

    async def dead_letters(request: Request) -> Response:
        lines = [f"{d.job.kind} {d.job.task_id}: {d.reason}" for d in inbox.dead_letters]
        return PlainTextResponse("".join(f"{line}\n" for line in lines))

    controls = Starlette(
        routes=[
            Route("/race/jobs", jobs, methods=["POST"]),
            Route("/race/drain", drain, methods=["POST"]),
            Route("/race/redeliver", redeliver, methods=["POST"]),
            Route("/race/dead-letters", dead_letters, methods=["GET"]),
        ]
    )

    async def serve(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/race/"):
            await controls(scope, receive, send)
        else:  # the A2A app, and the lifespan (it starts and closes the runtime)
            await a2a(scope, receive, send)

    return serve
