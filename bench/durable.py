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
from a2a_serverless.store.base import Store, TaskQuery
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


class GatedRemote:
    """The agent the orchestrator calls: one of ours on the dev stack (its SQLite file, its
    queue), which holds every answer until `open()`, then answers at once (a burst) or
    `stagger_ms` apart. `ended` has, per answer (the text it was sent), when its agent returned
    (time.monotonic(): on Linux the machine's clock, comparable across processes)."""

    def __init__(self, db: Path, *, push: bool, stagger_ms: float = 0.0) -> None:
        self.gate = asyncio.Event()
        self.ended: dict[str, float] = {}
        self.opened = 0.0
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"

        @agent(name="Worker", description="answers when let through")
        async def worker(text: str) -> str:
            await self.gate.wait()
            # A turn the remote's queue started late answers at once.
            due = self.opened + int(text.split()[-1]) * stagger_ms / 1000
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            self.ended[text] = time.monotonic()
            return text

        self.app = create_app(
            worker,
            Settings(
                store_url=f"sqlite:///{db}",
                push_notifications=push,
                # Its own limit on deliveries to one host (10/s by default) would pace the
                # callbacks, all to 127.0.0.1: measured without it.
                push_max_per_host_per_s=0,
                dev_mode=True,
                poll_interval_s=0.25,
            ),
        )

    def open(self) -> None:
        self.opened = time.monotonic()
        self.gate.set()


def p50_p99_max(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[max(0, int(len(ordered) * 0.99) - 1)], ordered[-1]


def delay_figures(delays_ms: list[float]) -> dict[str, float]:
    """The resume delays' p50, p99 and max, as both paths report them."""
    p50, p99, most = p50_p99_max(delays_ms)
    return {
        "resume delay p50 (ms)": round(p50, 1),
        "resume delay p99 (ms)": round(p99, 1),
        "resume delay max (ms)": round(most, 1),
    }


async def send_calls(url: str, calls: int, *, connections: int) -> None:
    """`calls` non-blocking `message/send`s ("call 0", "call 1", ...) to the orchestrator at
    `url`, `connections` at a time."""
    async with httpx.AsyncClient(
        timeout=60, limits=httpx.Limits(max_connections=connections)
    ) as http:
        sem = asyncio.Semaphore(connections)

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
                reply = await http.post(url, json=body)
                reply.raise_for_status()
                if "error" in reply.json():
                    raise RuntimeError(f"call {i} refused: {reply.text[:500]}")

        await asyncio.gather(*(send(i) for i in range(calls)))


async def wait_until_suspended(store: Store, calls: int, timeout_s: float = 600.0) -> None:
    """Until the orchestrator's `calls` turns are all suspended, no worker holding any."""
    async with asyncio.timeout(timeout_s):
        while True:
            page = await store.list_tasks(TaskQuery(owner="anonymous", limit=calls))
            suspended = 0
            for record in page.records:
                turn = durable_of(record.internal)
                if turn is not None and turn.suspended and record.claim is None:
                    suspended += 1
            if suspended == calls:
                return
            await asyncio.sleep(0.5)


async def run(
    calls: int, idle_s: float, push: bool, tmp: Path, stagger_ms: float = 0.0
) -> dict[str, Any]:
    continued: dict[str, float] = {}  # the remote's answer -> when the orchestrator went on
    all_continued = asyncio.Event()
    remote = GatedRemote(tmp / "worker.db", push=push, stagger_ms=stagger_ms)

    orch_port = free_port()

    @agent(
        name="Orchestrator",
        description="calls the worker",
        remote_agents={"worker": remote.url},
    )
    async def orchestrator(ctx: Context) -> str:
        result = await ctx.call("worker", ctx.text)
        continued.setdefault(result.text, time.monotonic())
        if len(continued) == calls:
            all_continued.set()
        return result.text

    orch_app = create_app(
        orchestrator,
        Settings(
            store_url=f"sqlite:///{tmp / 'orchestrator.db'}",
            public_url=f"http://127.0.0.1:{orch_port}",
            durable_inline_wait_s=0.2,
            durable_poll_initial_s=3600.0 if push else 1.0,
            durable_poll_max_s=3600.0 if push else 1.0,
            dev_mode=True,
            poll_interval_s=0.25,
        ),
    )
    servers = [await serve(remote.app, remote.port), await serve(orch_app, orch_port)]
    try:
        started = time.monotonic()
        await send_calls(f"http://127.0.0.1:{orch_port}/", calls, connections=50)
        await wait_until_suspended(orch_app.runtime.store, calls)
        all_suspended_s = time.monotonic() - started
        cpu_before, wall_before = time.process_time(), time.monotonic()
        await asyncio.sleep(idle_s)
        idle_cpu = time.process_time() - cpu_before
        idle_wall = time.monotonic() - wall_before
        remote.open()
        await all_continued.wait()
        delays = [(continued[k] - remote.ended[k]) * 1000 for k in continued]
    finally:
        for server, task in servers:
            server.should_exit = True
            await task
        await orch_app.runtime.aclose()
        await remote.app.runtime.aclose()
    return {
        "calls": calls,
        "resumed by": "callback" if push else "poll (1 s)",
        "answers": f"{stagger_ms:g} ms apart" if stagger_ms else "all at once",
        "all suspended after (s)": round(all_suspended_s, 1),
        "CPU while all wait (% of one core)": round(100 * idle_cpu / idle_wall, 2),
        **delay_figures(delays),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--path",
        choices=("dev", "aws"),
        default="dev",
        help="dev: two agents on uvicorn and SQLite; aws: the orchestrator as its Lambda "
        "functions under awslambdaric, on DynamoDB Local and SQS on moto (bench/durable_aws.py)",
    )
    parser.add_argument("--calls", type=int, help="suspended calls (dev: 1000, aws: 200)")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds measured while waiting")
    parser.add_argument("--no-push", action="store_true", help="resume by polls, not callbacks")
    parser.add_argument(
        "--stagger-ms", type=float, default=0.0, help="the worker's answers this far apart"
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=2,
        help="aws: execution environments of each function (and SQS pollers)",
    )
    args = parser.parse_args()
    push = not args.no_push
    with tempfile.TemporaryDirectory() as tmp:
        if args.path == "aws":
            from .durable_aws import run_aws

            figures = run_aws(
                args.calls or 200, args.idle, push, Path(tmp), args.stagger_ms, args.concurrency
            )
        else:
            figures = asyncio.run(
                run(args.calls or 1000, args.idle, push, Path(tmp), args.stagger_ms)
            )
    for name, value in figures.items():
        print(f"{name:40} {value}")


if __name__ == "__main__":
    main()
