"""A local Lambda Runtime API, so our handlers run under the real runtime client (awslambdaric).

`RuntimeApi` implements the four endpoints a runtime client calls
(https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html):

    GET  /2018-06-01/runtime/invocation/next           the next event (blocks until there is one)
    POST /2018-06-01/runtime/invocation/{id}/response  the handler's result
    POST /2018-06-01/runtime/invocation/{id}/error     the handler raised
    POST /2018-06-01/runtime/init/error                the handler could not even be loaded

A response over Lambda's synchronous payload limit (`RESPONSE_LIMIT`) is refused as Lambda
refuses it: 413 to the runtime client, `Function.ResponseSizeTooLarge` to the invoker.

and, for SnapStart (a client started with AWS_LAMBDA_INITIALIZATION_TYPE=snap-start runs its
before-snapshot hooks after init, then asks for the restore):

    GET  /2018-06-01/runtime/restore/next              blocks while the "snapshot" is held
                                                       (`restore_requested`, `restore_released`)
    POST /2018-06-01/runtime/restore/error             an after-restore hook raised

`LambdaFunction` is one function: a `RuntimeApi` plus a `python -m awslambdaric module.handler`
process (an "execution environment") with the environment Lambda gives one. `invoke(event)`
queues an event and waits for the result; if the process dies mid-invocation (as a crashed or
timed-out function does) it raises `FunctionCrashed`, and `restart()` starts a fresh process, as
Lambda starts a new environment. Each process's output is kept in a log file for failure messages.

Lambda's timeout is enforced when the function is made with `enforce_timeout=True`: an invocation
still running at its deadline has its process killed (SIGKILL, as Lambda resets an execution
environment whose invocation timed out) and `invoke` raises `FunctionTimedOut`, a kind of
`FunctionCrashed`. `kill(sig)` sends a signal to the running process (the fault tests' SIGKILL).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PREFIX = "/2018-06-01/runtime"
# Lambda's limit on a synchronous invocation's response payload, as its error message gives it.
RESPONSE_LIMIT = 6_291_556
_INVOCATION = re.compile(rf"^{PREFIX}/invocation/([^/]+)/(response|error)$")
REPO = Path(__file__).resolve().parents[3]


@dataclass
class Invocation:
    request_id: str
    event: bytes
    deadline_ms: int
    function_arn: str
    done: threading.Event = field(default_factory=threading.Event)
    # The function's timeout; the deadline is set again from it when the runtime client takes
    # the invocation, as Lambda's clock starts with the invoke phase, not while a process boots.
    timeout_s: float | None = None
    # When (time.monotonic()) the runtime client took it; None while it waits.
    taken_at: float | None = None
    response: bytes | None = None
    error: dict[str, Any] | None = None


class FunctionError(Exception):
    """The handler raised: Lambda reports an invocation error."""

    def __init__(self, error: dict[str, Any], logs: str) -> None:
        super().__init__(
            f"{error.get('errorType')}: {error.get('errorMessage')}\n--- logs ---\n{logs}"
        )
        self.error = error


class FunctionCrashed(Exception):
    """The function's process ended while (or before) handling the invocation."""


class FunctionTimedOut(FunctionCrashed):
    """The invocation ran past the function's timeout: its process was killed (enforce_timeout)."""


class RuntimeApi:
    def __init__(self, *, trace_sampled: bool = False) -> None:
        # Whether invocations carry a sampled X-Ray trace header (Sampled=1), as Lambda sends
        # when active tracing samples a request.
        self.trace_sampled = trace_sampled
        self.pending: queue.Queue[Invocation | None] = queue.Queue()
        self.invocations: dict[str, Invocation] = {}
        self.init_errors: list[dict[str, Any]] = []
        # SnapStart: set when the client has run its before-snapshot hooks and asks to be
        # restored; the restore is answered once `restore_released` is set.
        self.restore_requested = threading.Event()
        self.restore_released = threading.Event()
        self.restore_errors: list[dict[str, Any]] = []
        self._server = _QuietServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def address(self) -> str:
        port = self._server.server_address[1]
        return f"127.0.0.1:{port}"

    def start(self) -> RuntimeApi:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.restore_released.set()  # wakes a client blocked on /restore/next
        self.pending.put(None)  # wakes a client blocked on /next
        self._server.shutdown()
        self._server.server_close()

    def submit(self, event: Any, *, timeout_s: float, function_arn: str) -> Invocation:
        invocation = Invocation(
            request_id=str(uuid.uuid4()),
            event=json.dumps(event).encode(),
            deadline_ms=int((time.time() + timeout_s) * 1000),
            function_arn=function_arn,
            timeout_s=timeout_s,
        )
        self.invocations[invocation.request_id] = invocation
        self.pending.put(invocation)
        return invocation

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return  # quiet: the tests keep the function's own logs

            def do_GET(self) -> None:
                if self.path == f"{PREFIX}/restore/next":
                    api.restore_requested.set()
                    api.restore_released.wait()
                    self._reply(200, {})
                    return
                if self.path != f"{PREFIX}/invocation/next":
                    self._reply(404, {"errorMessage": "not found"})
                    return
                invocation = api.pending.get()
                if invocation is None:  # shutting down: the client is gone or going
                    api.pending.put(None)
                    self.close_connection = True
                    return
                if invocation.timeout_s is not None:
                    invocation.deadline_ms = int((time.time() + invocation.timeout_s) * 1000)
                invocation.taken_at = time.monotonic()
                self.send_response(200)
                self.send_header("Lambda-Runtime-Aws-Request-Id", invocation.request_id)
                self.send_header("Lambda-Runtime-Deadline-Ms", str(invocation.deadline_ms))
                self.send_header("Lambda-Runtime-Invoked-Function-Arn", invocation.function_arn)
                self.send_header(
                    "Lambda-Runtime-Trace-Id",
                    f"Root=1-{int(time.time()):08x}-{uuid.uuid4().hex[:24]};"
                    f"Parent={uuid.uuid4().hex[:16]};Sampled={int(api.trace_sampled)}",
                )
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(invocation.event)))
                self.end_headers()
                self.wfile.write(invocation.event)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if self.path == f"{PREFIX}/init/error":
                    api.init_errors.append(_json_or_text(body))
                    self._reply(202, {"status": "OK"})
                    return
                if self.path == f"{PREFIX}/restore/error":
                    api.restore_errors.append(_json_or_text(body))
                    self._reply(202, {"status": "OK"})
                    return
                match = _INVOCATION.match(self.path)
                invocation = api.invocations.get(match.group(1)) if match else None
                if match is None or invocation is None:
                    self._reply(404, {"errorMessage": "unknown invocation"})
                    return
                if match.group(2) == "response" and len(body) > RESPONSE_LIMIT:
                    # What Lambda does with a response over its synchronous payload limit: the
                    # runtime client is told 413, the invoker gets an error (API Gateway: 502).
                    invocation.error = {
                        "errorType": "Function.ResponseSizeTooLarge",
                        "errorMessage": f"Response payload size ({len(body)} bytes) exceeded "
                        f"maximum allowed payload size ({RESPONSE_LIMIT} bytes).",
                    }
                    invocation.done.set()
                    self._reply(
                        413,
                        {
                            "errorMessage": "Exceeded maximum allowed payload size "
                            f"({RESPONSE_LIMIT} bytes).",
                            "errorType": "RequestEntityTooLarge",
                        },
                    )
                    return
                if match.group(2) == "response":
                    invocation.response = body
                else:
                    error = _json_or_text(body)
                    error.setdefault(
                        "errorType", self.headers.get("Lambda-Runtime-Function-Error-Type")
                    )
                    invocation.error = error
                invocation.done.set()
                self._reply(202, {"status": "OK"})

            def _reply(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A killed function drops its connection mid-request: expected, not worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _json_or_text(body: bytes) -> dict[str, Any]:
    try:
        value = json.loads(body)
    except ValueError:
        return {"errorMessage": body.decode("utf-8", "replace")}
    return value if isinstance(value, dict) else {"errorMessage": value}


_process_numbers = itertools.count(1)


class LambdaFunction:
    def __init__(
        self,
        handler: str,
        *,
        env: dict[str, str],
        log_dir: Path,
        timeout_s: float,
        name: str = "a2a-test",
        trace_sampled: bool = False,
        enforce_timeout: bool = False,
    ) -> None:
        self.handler = handler
        self.trace_sampled = trace_sampled
        # Kill the process at an invocation's deadline, as Lambda does (off: wait up to wait_s).
        self.enforce_timeout = enforce_timeout
        self.timeouts = 0
        self.env = env
        self.log_dir = log_dir
        self.timeout_s = timeout_s
        self.name = name
        self.arn = f"arn:aws:lambda:us-east-1:123456789012:function:{name}"
        self.api: RuntimeApi | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.log_paths: list[Path] = []
        self.starts = 0

    def start(self) -> LambdaFunction:
        # A Runtime API per process: a killed client may leave a request to /next behind, which
        # must not take the next process's invocation.
        self.api = RuntimeApi(trace_sampled=self.trace_sampled).start()
        log_path = self.log_dir / f"{self.name}-{next(_process_numbers)}.log"
        self.log_paths.append(log_path)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "AWS_LAMBDA_RUNTIME_API": self.api.address,
            "LAMBDA_TASK_ROOT": str(REPO),
            "_HANDLER": self.handler,
            "AWS_LAMBDA_FUNCTION_NAME": self.name,
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "512",
            "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{self.name}",
            "AWS_LAMBDA_LOG_STREAM_NAME": "local",
            "AWS_REGION": "us-east-1",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            # The runtime the function runs on: this interpreter (python3.12 deployed).
            "AWS_EXECUTION_ENV": "AWS_Lambda_python{}.{}".format(*sys.version_info[:2]),
            # A worktree's own adapters over the editable install's (as the tests' shell has it).
            **({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}),
            **self.env,
        }
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "awslambdaric", self.handler],
                cwd=REPO,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.starts += 1
        return self

    def restart(self) -> None:
        """A new execution environment, as Lambda makes after one crashed."""
        self.stop()
        self.start()

    def invoke(self, event: Any, *, wait_s: float = 60.0) -> Any:
        """Run one invocation; its result (JSON-decoded), or FunctionError / FunctionCrashed."""
        if self.api is None or self.process is None or self.process.poll() is not None:
            raise FunctionCrashed(f"{self.name} is not running\n--- logs ---\n{self.logs()}")
        invocation = self.api.submit(event, timeout_s=self.timeout_s, function_arn=self.arn)
        deadline = time.monotonic() + wait_s
        while not invocation.done.wait(0.05):
            if (
                self.enforce_timeout
                and invocation.taken_at is not None
                and time.time() * 1000 >= invocation.deadline_ms
            ):
                self.kill()
                self.timeouts += 1
                raise FunctionTimedOut(
                    f"{self.name}: Task timed out after {self.timeout_s:.2f} seconds"
                    f"\n--- logs ---\n{self.logs()}"
                )
            if self.process.poll() is not None:
                raise FunctionCrashed(
                    f"{self.name} exited with {self.process.returncode} during an invocation"
                    f"\n--- init errors ---\n{self.api.init_errors}\n--- logs ---\n{self.logs()}"
                )
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name} did not answer in {wait_s} s\n{self.logs()}")
        if invocation.error is not None:
            raise FunctionError(invocation.error, self.logs())
        assert invocation.response is not None
        return json.loads(invocation.response)

    def running_since(self) -> float | None:
        """When (time.monotonic()) the invocation now running was taken; None if none runs."""
        if self.api is None:
            return None
        running = [
            i.taken_at
            for i in list(self.api.invocations.values())
            if i.taken_at is not None and not i.done.is_set()
        ]
        return min(running) if running else None

    @property
    def pid(self) -> int | None:
        """The running process's id (None when none runs)."""
        if self.process is None or self.process.poll() is not None:
            return None
        return self.process.pid

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send `sig` to the running process and, for SIGKILL, wait until it is gone."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(sig)
        if sig == signal.SIGKILL:
            self.process.wait(10)

    def logs(self) -> str:
        parts = []
        for path in self.log_paths:
            with contextlib.suppress(OSError):
                parts.append(f"=== {path.name} ===\n{path.read_text(errors='replace')}")
        return "\n".join(parts)

    def _end_process(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)

    def stop(self) -> None:
        self._end_process()
        if self.api is not None:
            self.api.stop()
            self.api = None
