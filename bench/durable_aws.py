"""Durable calls on the AWS path: what suspended calls cost the worker function while they wait,
and how soon a turn continues once its remote task ends.

    .venv/bin/python -m bench.durable --path aws --calls 200 [--no-push] [--concurrency 2]

The orchestrator is deployed as it is on Lambda (its handler module: bench/durable_lambda.py):

- its HTTP function and its worker function, each `--concurrency` execution environments, every
  one a `python -m awslambdaric` process against the small local Runtime API the tests use
  (tests/aws/runtime/runtime_api.py), configured by `A2A_*` variables as a deployment is;
- DynamoDB Local as the store (bench/dynamodb_local.py), SQS on moto's server as the queue
  (bench/moto_s3.py), a queue with its dead-letter queue as the tests make them;
- API Gateway (`Gateway`): a loopback HTTP server that turns each request into an HTTP API
  (payload 2.0) event for a free environment of the HTTP function and its result into the
  response. The bench's calls come in through it, and so do the remote's push notifications
  (the orchestrator's `A2A_PUBLIC_URL` is its address);
- Lambda's SQS event source mapping (`EventSourceMapping`): per worker environment, one poller
  that long-polls the queue (20 s, batches of up to 10), invokes the worker function with the
  batch as Lambda's event and deletes what the function did not report failed (the tests'
  `SqsTrigger`, with ReportBatchItemFailures). What it does not reproduce: Lambda's poller
  fleet and its scaling (Lambda starts with five pollers and adds environments as the queue
  backs up; here the pollers and the environments are fixed, one to one), the batching window,
  and SQS's own latency (moto answers on loopback; a delayed message, as the `--no-push` polls
  are, becomes visible to a waiting receive within moto's 1 s wait step). The functions run on
  this interpreter and its environment (the `.venv`), not on a deployment's bundle: what a
  first use imports there can be more than a bundle has (bench/README.md: trio, under httpcore).

The remote agent is bench/durable.py's: one of ours on the dev stack (uvicorn, SQLite) in this
process, holding every answer until all the calls are suspended. The bench sends `calls`
non-blocking messages through the gateway, waits until every turn is suspended and (with
callbacks) no function is invoked, then measures for `--idle` seconds the CPU of the worker and
HTTP functions' processes (Linux /proc) and the worker invocations (none, with callbacks: a
suspended call holds no worker), opens the gate, and reports per call the delay from the
remote's agent returning to the orchestrator's agent continuing past `ctx.call` in a worker
environment (p50, p99, max): resumed by the remote's push notification through the HTTP
function, or with `--no-push` by the worker's durable-check polls (every 1 s, each a worker
invocation). With callbacks it splits the delay: the remote's delivery, the callback in the
HTTP function (waiting for a free environment, then its invocation), and from the callback's
answer to the agent going on (SQS, the event source, the worker's replay of the turn).

The functions' logs are in the run's temporary directory (gone at the end).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import queue
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from a2a_serverless.push.keys import generate_keys_json
from a2a_serverless.routepaths import CALLBACK_PREFIX
from a2a_serverless.store import open_store
from a2a_serverless_aws.dynamodb import create_table
from tests.aws.runtime.events import SqsTrigger, create_queues, http_api_event
from tests.aws.runtime.runtime_api import FunctionCrashed, FunctionError, LambdaFunction
from tests.reliability.load import cpu_seconds

from .durable import (
    GatedRemote,
    delay_figures,
    p50_p99_max,
    send_calls,
    serve,
    wait_until_suspended,
)
from .dynamodb_local import REGION, credentials, dynamodb_local, store_url
from .moto_s3 import moto_server

HANDLERS = "bench.durable_lambda"
HTTP_TIMEOUT_S = 30
WORKER_TIMEOUT_S = 60
# AWS's recommendation for an SQS event source: the visibility timeout 6x the function's.
VISIBILITY_TIMEOUT_S = 6 * WORKER_TIMEOUT_S
LONG_POLL_S = 20  # what Lambda's pollers wait for
BATCH_SIZE = 10  # the event source mapping's default for standard queues
MAX_RECEIVE_COUNT = 5  # the redrive policy's, as the adapter's default expects
POLL_S = 1.0  # the --no-push polls' interval, as on the dev stack
RESUME_TIMEOUT_S = 600.0


class FunctionPool:
    """One function's execution environments; `invoke` runs an event on a free one (waiting for
    one when all are busy, as a function at its reserved concurrency would throttle; one whose
    process died is started again). `timings` has, per invocation in order, how long it waited
    for a free environment and how long it ran (seconds)."""

    def __init__(self) -> None:
        self.functions: list[LambdaFunction] = []
        self.timings: list[tuple[float, float]] = []
        self._free: queue.Queue[LambdaFunction] = queue.Queue()

    def add(self, *functions: LambdaFunction) -> None:
        for function in functions:
            self.functions.append(function)
            self._free.put(function)

    def invoke(self, event: Any) -> Any:
        asked = time.monotonic()
        function = self._free.get()
        taken = time.monotonic()
        try:
            return function.invoke(event)
        except FunctionCrashed:
            function.restart()  # as Lambda replaces an environment whose process died
            raise
        finally:
            self.timings.append((taken - asked, time.monotonic() - taken))
            self._free.put(function)

    def pids(self) -> list[int]:
        return [f.pid for f in self.functions if f.pid is not None]

    def invocations(self) -> int:
        return sum(len(f.api.invocations) for f in self.functions if f.api is not None)

    def busy(self) -> bool:
        return any(f.running_since() is not None for f in self.functions)


@dataclass(frozen=True)
class CallbackSeen:
    task_id: str  # the orchestrator's task the callback is for
    arrived: float  # time.monotonic()
    answered: float
    status: int


class Gateway:
    """API Gateway's HTTP API in front of the HTTP function, on a loopback port: a request
    becomes a payload 2.0 event, the function's result the response (its error: 502, as API
    Gateway answers). `callbacks` has each callback request it forwarded, in order."""

    def __init__(self, http: FunctionPool) -> None:
        self.callbacks: list[CallbackSeen] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class(http))
        self.server.daemon_threads = True
        self.host = f"127.0.0.1:{self.server.server_address[1]}"
        self.url = f"http://{self.host}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @contextlib.contextmanager
    def running(self) -> Iterator[Gateway]:
        self._thread.start()
        try:
            yield self
        finally:
            self.server.shutdown()
            self.server.server_close()

    def _handler_class(self, http: FunctionPool) -> type[BaseHTTPRequestHandler]:
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                self._forward()

            def do_POST(self) -> None:
                self._forward()

            def _forward(self) -> None:
                arrived = time.monotonic()
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else None
                target = urlsplit(self.path)
                headers = {
                    name.lower(): value
                    for name, value in self.headers.items()
                    if name.lower() not in ("host", "content-length", "connection")
                }
                headers["x-forwarded-proto"] = "http"
                event = http_api_event(self.command, target.path, body, headers, host=gateway.host)
                event["rawQueryString"] = target.query
                try:
                    result = http.invoke(event)
                except (FunctionError, FunctionCrashed):
                    status, reply_headers, data = 502, {}, b'{"message":"Internal Server Error"}'
                else:
                    status = int(result.get("statusCode", 200))
                    reply_headers = result.get("headers") or {}
                    text = result.get("body") or ""
                    data = (
                        base64.b64decode(text) if result.get("isBase64Encoded") else text.encode()
                    )
                if target.path.startswith(CALLBACK_PREFIX):
                    task_id = target.path.removeprefix(CALLBACK_PREFIX).split("/")[0]
                    seen = CallbackSeen(task_id, arrived, time.monotonic(), status)
                    gateway.callbacks.append(seen)
                self.send_response(status)
                for name, value in reply_headers.items():
                    if name.lower() not in ("content-length", "connection"):
                        self.send_header(name, str(value))
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


class EventSourceMapping:
    """Lambda's SQS event source mapping, one poller thread per worker environment: long-poll
    the queue, invoke the function with the batch, delete what succeeded (`SqsTrigger.poll`).
    See the module's docstring for what it does not reproduce."""

    def __init__(self, sqs: Any, queue_url: str, workers: FunctionPool) -> None:
        self.stopping = threading.Event()
        self.errors: list[BaseException] = []
        self._threads = [
            threading.Thread(
                target=self._poll,
                args=(SqsTrigger(sqs, queue_url, function, batch_size=BATCH_SIZE),),
                daemon=True,
            )
            for function in workers.functions
        ]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def _poll(self, trigger: SqsTrigger) -> None:
        while not self.stopping.is_set():
            try:
                result = trigger.poll(LONG_POLL_S)
            except Exception as error:
                if not self.stopping.is_set():  # the queue's server going away ends a poll
                    self.errors.append(error)
                return
            if result.error is not None and not self.stopping.is_set():
                self.errors.append(RuntimeError(f"worker invocation failed: {result.error}"))

    def join(self, timeout_s: float) -> None:
        for thread in self._threads:
            thread.join(timeout_s)


def function_env(
    *, moto: str, store: str, queue_url: str, gateway: str, remote: str, continued: Path, push: bool
) -> dict[str, str]:
    """What both functions are configured with, as a deployment sets its `A2A_*` variables."""
    poll_s = 3600.0 if push else POLL_S  # with callbacks, a poll never comes within the run
    return {
        "AWS_ENDPOINT_URL_SQS": moto,
        "A2A_STORE_URL": store,
        "A2A_SQS_QUEUE_URL": queue_url,
        "A2A_SQS_VISIBILITY_TIMEOUT_S": str(VISIBILITY_TIMEOUT_S),
        "A2A_SQS_MAX_RECEIVE_COUNT": str(MAX_RECEIVE_COUNT),
        "A2A_PUBLIC_URL": gateway,
        "A2A_DEV_MODE": "true",  # a loopback http remote and public URL
        "A2A_PUSH_SIGNING_KEYS": generate_keys_json(),
        "A2A_WORKER_LEASE_S": str(WORKER_TIMEOUT_S + 30),
        "A2A_DURABLE_INLINE_WAIT_S": "0.2",
        "A2A_DURABLE_POLL_INITIAL_S": str(poll_s),
        "A2A_DURABLE_POLL_MAX_S": str(poll_s),
        "POWERTOOLS_SERVICE_NAME": "bench-orchestrator",
        "POWERTOOLS_METRICS_NAMESPACE": "a2a-bench",
        "BENCH_REMOTE_URL": remote,
        "BENCH_CONTINUED_FILE": str(continued),
    }


def read_continued(path: Path) -> dict[str, tuple[str, float]]:
    """The orchestrator's lines: per answer, its task and when its agent first went on past
    the call."""
    continued: dict[str, tuple[str, float]] = {}
    if path.exists():
        # Whole lines only: a worker may be writing the last one.
        for line in path.read_text().split("\n")[:-1]:
            text, task_id, moment = line.split("\t")
            continued.setdefault(text, (task_id, float(moment)))
    return continued


class Deployment:
    """The orchestrator deployed: its queues, its two functions' environments (not started),
    API Gateway in front of the HTTP function, the event source mapping behind the worker."""

    def __init__(
        self, tmp: Path, remote: GatedRemote, push: bool, concurrency: int, *, moto: str, store: str
    ) -> None:
        import boto3  # type: ignore[import-untyped]
        from botocore.config import Config  # type: ignore[import-untyped]

        # No retries: once the bench stops moto's server, a poller's long poll ends at once.
        sqs = boto3.client(
            "sqs",
            region_name=REGION,
            endpoint_url=moto,
            config=Config(
                retries={"total_max_attempts": 1}, max_pool_connections=2 * concurrency + 4
            ),
        )
        queues = create_queues(
            sqs, max_receive_count=MAX_RECEIVE_COUNT, visibility_timeout_s=VISIBILITY_TIMEOUT_S
        )
        self.store = store
        self.continued_file = tmp / "continued.txt"
        self.http = FunctionPool()
        self.gateway = Gateway(self.http)
        env = function_env(
            moto=moto,
            store=store,
            queue_url=queues.url,
            gateway=self.gateway.url,
            remote=remote.url,
            continued=self.continued_file,
            push=push,
        )

        def make(handler: str, name: str, timeout_s: int) -> LambdaFunction:
            return LambdaFunction(
                f"{HANDLERS}.{handler}",
                env={**env, "A2A_LAMBDA_TIMEOUT_S": str(timeout_s)},
                log_dir=tmp,
                timeout_s=timeout_s,
                name=name,
            )

        self.http.add(*(make("http", f"http-{i}", HTTP_TIMEOUT_S) for i in range(concurrency)))
        self.workers = FunctionPool()
        self.workers.add(
            *(make("worker", f"worker-{i}", WORKER_TIMEOUT_S) for i in range(concurrency))
        )
        self.mapping = EventSourceMapping(sqs, queues.url, self.workers)

    def start(self) -> None:
        for function in [*self.http.functions, *self.workers.functions]:
            function.start()
        self.mapping.start()

    def stop(self) -> None:
        """After moto's server has stopped (every long poll has ended: no poller invokes a
        function again), end the pollers and the functions' processes."""
        self.mapping.join(10)
        for function in [*self.http.functions, *self.workers.functions]:
            function.stop()


async def measure(
    deployment: Deployment, remote: GatedRemote, calls: int, idle_s: float, push: bool
) -> dict[str, Any]:
    http, workers, mapping = deployment.http, deployment.workers, deployment.mapping
    server, served = await serve(remote.app, remote.port)
    try:
        with deployment.gateway.running():
            started = time.monotonic()
            await send_calls(f"{deployment.gateway.url}/", calls, connections=8)
            store = open_store(deployment.store)
            try:
                await wait_until_suspended(store, calls)
            finally:
                await store.close()
            # With callbacks, until the last batch's records are deleted (other processes: no
            # event to wait on); with polls the checks keep coming, which is what they cost.
            while push and (workers.busy() or http.busy()):  # noqa: ASYNC110
                await asyncio.sleep(0.1)
            all_suspended_s = time.monotonic() - started
            worker_pids, http_pids = workers.pids(), http.pids()
            invocations_before = workers.invocations()
            cpu_before, http_cpu_before = cpu_seconds(worker_pids), cpu_seconds(http_pids)
            wall_before = time.monotonic()
            await asyncio.sleep(idle_s)
            idle_cpu = cpu_seconds(worker_pids) - cpu_before
            http_idle_cpu = cpu_seconds(http_pids) - http_cpu_before
            idle_wall = time.monotonic() - wall_before
            idle_invocations = workers.invocations() - invocations_before
            first_invocation = len(http.timings)  # from now on: callbacks
            remote.open()
            async with asyncio.timeout(RESUME_TIMEOUT_S):
                while len(continued := read_continued(deployment.continued_file)) < calls:
                    if mapping.errors:
                        raise RuntimeError(f"the event source failed: {mapping.errors[0]}")
                    await asyncio.sleep(0.1)
            ended = {continued[text][0]: remote.ended[text] for text in continued}
            resumed = {task_id: moment for task_id, moment in continued.values()}
            delays = [(resumed[task_id] - ended[task_id]) * 1000 for task_id in resumed]
            callbacks = callback_figures(
                http.timings[first_invocation:], deployment.gateway.callbacks, ended, resumed
            )
    finally:
        server.should_exit = True
        await served
        await remote.app.runtime.aclose()
    return {
        "all suspended after (s)": round(all_suspended_s, 1),
        "worker invocations while all wait": idle_invocations,
        "worker CPU while all wait (% of a core)": round(100 * idle_cpu / idle_wall, 2),
        "HTTP function CPU while all wait (%)": round(100 * http_idle_cpu / idle_wall, 2),
        **delay_figures(delays),
        **callbacks,
    }


def callback_figures(
    invocations: list[tuple[float, float]],
    callbacks: list[CallbackSeen],
    ended: dict[str, float],
    resumed: dict[str, float],
) -> dict[str, Any]:
    """Where a resume by callback spends its time (none with polls), per task: from the remote's
    agent returning to its first callback reaching the gateway (the remote's delivery), the
    accepted callback in the HTTP function (waiting for a free environment, then running), and
    from its answer to the agent continuing (SQS, the event source, the worker's turn). 429s
    are callbacks over `A2A_DURABLE_CALLBACKS_PER_S`, which the remote sends again later."""
    if not callbacks:
        return {}
    first: dict[str, CallbackSeen] = {}
    accepted: dict[str, CallbackSeen] = {}
    for seen in callbacks:
        first.setdefault(seen.task_id, seen)
        if seen.status == 202:
            accepted.setdefault(seen.task_id, seen)
    delivered = [first[t].arrived - ended[t] for t in ended if t in first]
    handled = [accepted[t].answered - accepted[t].arrived for t in accepted]
    went_on = [resumed[t] - accepted[t].answered for t in resumed if t in accepted]
    run_s = [ran for _, ran in invocations]
    statuses = Counter(seen.status for seen in callbacks)
    return {
        "callbacks": ", ".join(f"{n} x {status}" for status, n in sorted(statuses.items())),
        "  remote ended -> callback arrives": p50_p99(delivered),
        "  callback in the HTTP function": p50_p99(handled),
        "    of which its invocation": p50_p99(run_s) + f", max {1000 * max(run_s):.0f} ms",
        "  callback answered -> agent goes on": p50_p99(went_on),
    }


def p50_p99(seconds: list[float]) -> str:
    if not seconds:
        return "-"
    p50, p99, _ = p50_p99_max([1000 * s for s in seconds])
    return f"p50 {p50:.0f} / p99 {p99:.0f} ms"


def run_aws(
    calls: int, idle_s: float, push: bool, tmp: Path, stagger_ms: float = 0.0, concurrency: int = 2
) -> dict[str, Any]:
    """Start the emulators, deploy, measure (see the module's docstring); the figures."""
    remote = GatedRemote(tmp / "remote.db", push=push, stagger_ms=stagger_ms)
    with credentials(), dynamodb_local() as dynamodb:
        table = f"a2a-bench-durable-{uuid.uuid4().hex[:8]}"
        create_table(table, region=REGION, endpoint_url=dynamodb)
        deployment: Deployment | None = None
        try:
            with moto_server() as moto:
                deployment = Deployment(
                    tmp, remote, push, concurrency, moto=moto, store=store_url(table, dynamodb)
                )
                deployment.start()
                try:
                    figures = asyncio.run(measure(deployment, remote, calls, idle_s, push))
                finally:
                    deployment.mapping.stopping.set()
        finally:
            if deployment is not None:
                deployment.stop()
    return {
        "calls": calls,
        "path": f"AWS: {concurrency} HTTP + {concurrency} worker environments",
        "resumed by": "callback (via the HTTP function)" if push else f"poll ({POLL_S:g} s)",
        "answers": f"{stagger_ms:g} ms apart" if stagger_ms else "all at once",
        **figures,
    }
