"""Durable calls on the dev stack: what suspended calls cost while they wait, and how soon a turn
continues once its remote task ends.

    .venv/bin/python -m bench.durable --calls 1000

Two of our agents on uvicorn in this process, each on its own SQLite file with its SQLite queue
(the dev stack): the orchestrator's `calls` tasks each `ctx.call` the worker, which holds every
answer until all the calls are suspended. Then it measures, for `--idle` seconds, the CPU this
process spends while they all wait (no worker holds a turn: it should be the servers' idle
polling alone), opens the gate, and reports, per call, the delay from the worker's task ending
(the moment its agent returns) to the orchestrator's agent continuing past `ctx.call` (p50, p99,
max) — resumed by the worker's push notification to the callback endpoint (or, with
`--no-push`, by the polls). The answers come all at once (a burst: the delay is then mostly
queueing), or `--stagger-ms` apart.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from a2a_serverless import Context, Settings, agent
from a2a_serverless.app import create_app
from a2a_serverless.asgi import A2AApplication
from a2a_serverless.store.base import TaskQuery
from a2a_serverless.store.bookkeeping import durable_of


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def serve(app: A2AApplication, port: int) -> tuple[uvicorn.Server, asyncio.Task[None]]:
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    return server, task


async def run(
    calls: int, idle_s: float, push: bool, tmp: Path, stagger_ms: float = 0.0
) -> dict[str, Any]:
    gate = asyncio.Event()
    ended: dict[str, float] = {}  # worker text -> when its agent returned
    continued: dict[str, float] = {}  # the same text -> when the orchestrator went on
    all_continued = asyncio.Event()
    opened = [0.0]

    @agent(name="Worker", description="answers when let through")
    async def worker(text: str) -> str:
        await gate.wait()
        # Answers spread out (`stagger_ms` apart from the gate's opening), or all at once (a
        # burst). A turn the worker's queue started late answers at once.
        due = opened[0] + int(text.split()[-1]) * stagger_ms / 1000
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        ended[text] = time.monotonic()
        return text

    worker_port, orch_port = free_port(), free_port()

    @agent(
        name="Orchestrator",
        description="calls the worker",
        remote_agents={"worker": f"http://127.0.0.1:{worker_port}"},
    )
    async def orchestrator(ctx: Context) -> str:
        result = await ctx.call("worker", ctx.text)
        continued.setdefault(result.text, time.monotonic())
        if len(continued) == calls:
            all_continued.set()
        return result.text

    common: dict[str, Any] = {"dev_mode": True, "poll_interval_s": 0.25}
    worker_app = create_app(
        worker,
        Settings(
            store_url=f"sqlite:///{tmp / 'worker.db'}",
            push_notifications=push,
            # The worker's own limit on deliveries to one host (10/s by default) would pace the
            # callbacks, all to 127.0.0.1: measured without it.
            push_max_per_host_per_s=0,
            **common,
        ),
    )
    orch_app = create_app(
        orchestrator,
        Settings(
            store_url=f"sqlite:///{tmp / 'orchestrator.db'}",
            public_url=f"http://127.0.0.1:{orch_port}",
            durable_inline_wait_s=0.2,
            durable_poll_initial_s=3600.0 if push else 1.0,
            durable_poll_max_s=3600.0 if push else 1.0,
            **common,
        ),
    )
    servers = [await serve(worker_app, worker_port), await serve(orch_app, orch_port)]
    try:
        started = time.monotonic()
        async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=50)) as http:
            sem = asyncio.Semaphore(50)

            async def send(i: int) -> None:
                body = {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "message/send",
                    "params": {
                        "message": {
                            "kind": "message",
                            "messageId": f"m-{i}",
                            "role": "user",
                            "parts": [{"kind": "text", "text": f"call {i}"}],
                        },
                        "configuration": {"blocking": False},
                    },
                }
                async with sem:
                    reply = await http.post(f"http://127.0.0.1:{orch_port}/", json=body)
                    reply.raise_for_status()

            await asyncio.gather(*(send(i) for i in range(calls)))
        store = orch_app.runtime.store
        while True:
            page = await store.list_tasks(TaskQuery(owner="anonymous", limit=calls))
            suspended = 0
            for record in page.records:
                turn = durable_of(record.internal)
                if turn is not None and turn.suspended and record.claim is None:
                    suspended += 1
            if suspended == calls:
                break
            await asyncio.sleep(0.5)
        all_suspended_s = time.monotonic() - started
        cpu_before, wall_before = time.process_time(), time.monotonic()
        await asyncio.sleep(idle_s)
        idle_cpu = time.process_time() - cpu_before
        idle_wall = time.monotonic() - wall_before
        opened[0] = time.monotonic()
        gate.set()
        await all_continued.wait()
        delays = sorted((continued[k] - ended[k]) * 1000 for k in continued)
    finally:
        for server, task in servers:
            server.should_exit = True
            await task
        await orch_app.runtime.aclose()
        await worker_app.runtime.aclose()
    return {
        "calls": calls,
        "resumed by": "callback" if push else "poll (1 s)",
        "answers": f"{stagger_ms:g} ms apart" if stagger_ms else "all at once",
        "all suspended after (s)": round(all_suspended_s, 1),
        "CPU while all wait (% of one core)": round(100 * idle_cpu / idle_wall, 2),
        "resume delay p50 (ms)": round(statistics.median(delays), 1),
        "resume delay p99 (ms)": round(delays[max(0, int(len(delays) * 0.99) - 1)], 1),
        "resume delay max (ms)": round(delays[-1], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds measured while waiting")
    parser.add_argument("--no-push", action="store_true", help="resume by polls, not callbacks")
    parser.add_argument(
        "--stagger-ms", type=float, default=0.0, help="the worker's answers this far apart"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        figures = asyncio.run(
            run(args.calls, args.idle, not args.no_push, Path(tmp), args.stagger_ms)
        )
    for name, value in figures.items():
        print(f"{name:40} {value}")


if __name__ == "__main__":
    main()
