"""Fixtures for the Google Cloud runtime tests: real emulators and real functions-framework.

- `pubsub_emulator` (session): ``gcloud beta emulators pubsub start`` on a free loopback port;
  sets PUBSUB_EMULATOR_HOST for the session (this process and the functions it starts).
- `cloud_tasks_emulator` (session): gcloud-tasks-emulator from .emulators/cloud-tasks-venv
  (scripts/emulators/cloud-tasks.sh installs it), giving up on a task after
  `TASKS_MAX_ATTEMPTS` dispatches.
- `deployment` (session): one agent deployed as the user would (`deploy()`, which a test can
  call for a deployment of its own, with other settings): the A2A HTTP function and the
  worker function, each a real ``functions-framework`` server (gunicorn + uvicorn) on its own
  port, sharing a Firestore store (the emulator); a Pub/Sub topic whose push subscription feeds
  the worker, with a dead-letter topic pushed to the worker too; a Cloud Tasks queue for
  webhooks. Each function's stdout (its structured logs) is kept in a file.

A missing emulator fails the tests with how to install it; every process started here is
stopped (its whole process group) at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.gcp.conftest import FIRESTORE_TEST_PROJECT, unique_prefix
from tests.support.processes import start_process, stop_group, tail, wait_until
from tests.support.server import free_port

REPO = Path(__file__).resolve().parents[3]
MAIN = Path(__file__).resolve().parent / "functions_main.py"
TASKS_VENV = REPO / ".emulators" / "cloud-tasks-venv"
PROJECT = FIRESTORE_TEST_PROJECT
LOCATION = "us-central1"
# The Pub/Sub subscription's dead-letter policy and the Cloud Tasks queue's max attempts.
PUBSUB_MAX_DELIVERY_ATTEMPTS = 5
TASKS_MAX_ATTEMPTS = 4


def http_status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)
    except (urllib.error.URLError, OSError):
        return None


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="session")
def pubsub_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if shutil.which("gcloud") is None or shutil.which("java") is None:
        pytest.fail(
            "the Pub/Sub emulator needs gcloud and java on PATH; run scripts/emulators/pubsub.sh "
            "(it installs the pubsub-emulator component or says what to install)",
            pytrace=False,
        )
    host_port = f"127.0.0.1:{free_port()}"
    log_path = tmp_path_factory.mktemp("pubsub-emulator") / "emulator.log"
    args = ["gcloud", "beta", "emulators", "pubsub", "start", f"--host-port={host_port}"]
    process = start_process([*args, f"--project={PROJECT}"], log_path)
    try:
        wait_until(
            lambda: http_status(f"http://{host_port}/") == 200,
            process,
            "the Pub/Sub emulator (install it with scripts/emulators/pubsub.sh)",
            log_path,
        )
        with pytest.MonkeyPatch.context() as env:
            env.setenv("PUBSUB_EMULATOR_HOST", host_port)
            yield host_port
    finally:
        stop_group(process)


@pytest.fixture(scope="session")
def cloud_tasks_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    python = TASKS_VENV / "bin" / "python"
    if not python.exists():
        pytest.fail(
            f"the Cloud Tasks emulator is not installed ({python} missing): run "
            "scripts/emulators/cloud-tasks.sh",
            pytrace=False,
        )
    port = free_port()
    log_path = tmp_path_factory.mktemp("cloud-tasks-emulator") / "emulator.log"
    # -r: retries after the first dispatch, so TASKS_MAX_ATTEMPTS dispatches in all.
    args = [str(python), "-m", "gcloud_tasks_emulator", "start", "-p", str(port)]
    process = start_process([*args, "-r", str(TASKS_MAX_ATTEMPTS - 1)], log_path)
    try:
        wait_until(lambda: port_open(port), process, "the Cloud Tasks emulator", log_path)
        yield f"127.0.0.1:{port}"
    finally:
        stop_group(process)


@dataclass
class FunctionServer:
    target: str
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_lines(self) -> list[dict[str, Any]]:
        """The JSON log lines the function wrote to stdout so far."""
        lines = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            if line.startswith("{"):
                try:
                    lines.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
        return lines

    def tail(self) -> str:
        return tail(self.log_path)


def start_function(
    target: str,
    env: dict[str, str],
    log_dir: Path,
    ready_path: str,
    port: int | None = None,
    *,
    source: Path = MAIN,
    name: str | None = None,
) -> FunctionServer:
    """`functions-framework --target <target> --source <source>` (functions_main.py) on `port`
    (a free one by default), ready when `ready_path` answers anything; its output goes to
    `<name>.log` in `log_dir` (the target's name by default)."""
    port = port or free_port()
    log_path = log_dir / f"{name or target}.log"
    args = [sys.executable, "-m", "functions_framework", "--target", target]
    args += ["--source", str(source), "--host", "127.0.0.1", "--port", str(port)]
    # This checkout first; then whatever the tests' own path adds (the adapters of this
    # checkout where the environment's editable install points at another).
    python_path = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    full_env = {**os.environ, **env, "PYTHONPATH": python_path, "PYTHONUNBUFFERED": "1"}
    process = start_process(args, log_path, full_env)
    server = FunctionServer(target, port, process, log_path)
    wait_until(
        lambda: http_status(f"{server.url}{ready_path}") is not None,
        process,
        f"functions-framework --target {target}",
        log_path,
    )
    return server


@dataclass
class Deployment:
    http: FunctionServer
    worker: FunctionServer
    topic: str
    dead_letter_topic: str
    queue: str
    secret: str
    runs_file: Path
    env: dict[str, str] = field(default_factory=dict)

    def runs(self, text: str) -> int:
        """How many times the agent ran a turn for `text`."""
        if not self.runs_file.exists():
            return 0
        return self.runs_file.read_text().splitlines().count(text)


def _tasks_client(host_port: str) -> Any:
    import grpc
    from google.cloud.tasks_v2 import CloudTasksClient
    from google.cloud.tasks_v2.services.cloud_tasks.transports import CloudTasksGrpcTransport

    channel = grpc.insecure_channel(host_port)
    return CloudTasksClient(transport=CloudTasksGrpcTransport(channel=channel))


def create_job_topics(suffix: str, worker_url: str, secret: str) -> tuple[str, str]:
    """A jobs topic whose push subscription feeds the worker at `worker_url` (with the shared
    secret), and its dead-letter topic, pushed to the same worker; their names (the Pub/Sub
    emulator must be running)."""
    from google.cloud import pubsub_v1
    from google.protobuf import duration_pb2

    publisher = pubsub_v1.PublisherClient()
    subscriber = pubsub_v1.SubscriberClient()
    topic = publisher.topic_path(PROJECT, f"jobs-{suffix}")
    dead = publisher.topic_path(PROJECT, f"jobs-dead-{suffix}")
    for name in (topic, dead):
        publisher.create_topic(name=name)
    push = {"push_endpoint": f"{worker_url}?token={secret}"}
    subscriber.create_subscription(
        request={
            "name": subscriber.subscription_path(PROJECT, f"worker-{suffix}"),
            "topic": topic,
            "push_config": push,
            "ack_deadline_seconds": 60,
            "dead_letter_policy": {
                "dead_letter_topic": dead,
                "max_delivery_attempts": PUBSUB_MAX_DELIVERY_ATTEMPTS,
            },
            "retry_policy": {
                "minimum_backoff": duration_pb2.Duration(seconds=1),
                "maximum_backoff": duration_pb2.Duration(seconds=2),
            },
        }
    )
    subscriber.create_subscription(
        request={
            "name": subscriber.subscription_path(PROJECT, f"dead-letters-{suffix}"),
            "topic": dead,
            "push_config": push,
            "ack_deadline_seconds": 60,
        }
    )
    return topic, dead


@contextlib.contextmanager
def deploy(
    cloud_tasks_host: str,
    log_dir: Path,
    overrides: dict[str, str] | None = None,
    *,
    source: Path = MAIN,
) -> Iterator[Deployment]:
    """One deployment with topics, subscriptions, a Cloud Tasks queue and a Firestore prefix of
    its own (the Pub/Sub and Firestore emulators must be running: their fixtures set the
    environment). `overrides` replaces or adds settings of both functions; `source` is the
    user's main.py (functions_main.py's `a2a` and `worker` by default)."""
    from a2a_serverless.push.keys import generate_keys_json

    suffix = unique_prefix()
    secret = secrets.token_urlsafe(24)
    worker_port = free_port()
    worker_url = f"http://127.0.0.1:{worker_port}/"
    topic, dead = create_job_topics(suffix, worker_url, secret)
    queue = f"projects/{PROJECT}/locations/{LOCATION}/queues/webhooks-{suffix}"
    tasks = _tasks_client(cloud_tasks_host)
    tasks.create_queue(parent=queue.rsplit("/queues/", 1)[0], queue={"name": queue})

    runs_file = log_dir / "runs.txt"
    env = {
        "A2A_STORE_URL": f"firestore://{PROJECT}/(default)?prefix={suffix}",
        "A2A_GCP_PROJECT": PROJECT,
        "A2A_PUBSUB_TOPIC": topic,
        "A2A_PUBSUB_MAX_DELIVERY_ATTEMPTS": str(PUBSUB_MAX_DELIVERY_ATTEMPTS),
        "A2A_CLOUD_TASKS_QUEUE": queue,
        "A2A_CLOUD_TASKS_URL": worker_url,
        "A2A_CLOUD_TASKS_EMULATOR_HOST": cloud_tasks_host,
        "A2A_CLOUD_TASKS_MAX_ATTEMPTS": str(TASKS_MAX_ATTEMPTS),
        "A2A_WORKER_SECRET": secret,
        # Loopback webhooks; one signing key for both functions, so the worker's JWTs verify
        # against the JWKS the HTTP function publishes.
        "A2A_DEV_MODE": "true",
        "A2A_PUSH_SIGNING_KEYS": generate_keys_json(),
        "A2A_PUSH_BACKOFF_BASE_S": "0.3",
        "A2A_PUSH_BACKOFF_MAX_S": "0.6",
        "A2A_POLL_INTERVAL_S": "0.1",
        "A2A_BLOCKING_TIMEOUT_S": "20",
        # A worker that dies mid-turn is taken over soon (the poison test).
        "A2A_WORKER_LEASE_S": "1",
        "ECHO_RUNS_FILE": str(runs_file),
        **(overrides or {}),
    }
    started: list[FunctionServer] = []
    try:
        started.append(start_function("worker", env, log_dir, "/", port=worker_port, source=source))
        started.append(start_function("a2a", env, log_dir, "/health", source=source))
        yield Deployment(
            http=started[1],
            worker=started[0],
            topic=topic,
            dead_letter_topic=dead,
            queue=queue,
            secret=secret,
            runs_file=runs_file,
            env=env,
        )
    finally:
        for server in started:
            stop_group(server.process)


@pytest.fixture(scope="session")
def deployment(
    pubsub_emulator: str,
    cloud_tasks_emulator: str,
    firestore_emulator: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Deployment]:
    with deploy(cloud_tasks_emulator, tmp_path_factory.mktemp("functions")) as deployed:
        yield deployed
