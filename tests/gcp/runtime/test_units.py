"""Unit tests of the Google Cloud runtime pieces that need no emulator: how pushed requests are
read, trace headers, settings, worker authentication and the log format."""

from __future__ import annotations

import base64
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from a2a_serverless.observability import correlated
from a2a_serverless.queue.base import (
    WEBHOOK_JOB,
    Job,
    Notification,
    OtherJob,
    RunAgentJob,
    RunTurn,
    WebhookJob,
    decode_job,
    encode_job,
)
from a2a_serverless_gcp.cloud_logging import (
    CloudLoggingFormatter,
    TraceContext,
    parse_trace,
    traced,
)
from a2a_serverless_gcp.cloud_tasks import parse_task_request, task_id
from a2a_serverless_gcp.config import ConfigError, GcpConfig
from a2a_serverless_gcp.delivery import parse_delivery
from a2a_serverless_gcp.pubsub import PushFormatError, parse_push
from a2a_serverless_gcp.routing import RoutedQueue
from a2a_serverless_gcp.worker_auth import WorkerAuth
from tests.push.webhook_server import Reply, WebhookServer
from tests.unit.test_job_wire import PREVIOUS

pytestmark = pytest.mark.gcp

JOB = RunAgentJob(task_id="t1", payload=RunTurn("m1"), id="j1")
TOPIC = "projects/p/topics/jobs"


def pubsub_message(job: Job = JOB, **attributes: str) -> dict[str, Any]:
    return {
        "data": base64.b64encode(encode_job(job)).decode(),
        "attributes": attributes,
        "messageId": "42",
        "publishTime": "2026-01-01T00:00:00Z",
    }


# --- Pub/Sub pushes ---------------------------------------------------------------------------


def test_a_pubsub_push_body() -> None:
    body = {
        "message": pubsub_message(a2aTrace="0af7651916cd43dd8448eb211c80319c/7;o=1"),
        "subscription": "projects/p/subscriptions/worker",
        "deliveryAttempt": 3,
    }
    pushed = parse_push(json.dumps(body).encode(), {})
    assert pushed.job == JOB
    assert pushed.message_id == "42"
    assert pushed.delivery_attempt == 3
    assert pushed.dead_letter_reason is None
    assert pushed.trace == TraceContext("0af7651916cd43dd8448eb211c80319c", f"{7:016x}", True)


def test_a_binary_cloudevent_as_eventarc_sends_it() -> None:
    headers = {
        "ce-specversion": "1.0",
        "ce-type": "google.cloud.pubsub.topic.v1.messagePublished",
        "ce-source": "//pubsub.googleapis.com/" + TOPIC,
        "ce-id": "42",
    }
    body = {"message": pubsub_message(), "subscription": "projects/p/subscriptions/eventarc"}
    pushed = parse_push(json.dumps(body).encode(), headers)
    assert pushed.job == JOB
    assert pushed.delivery_attempt is None


def test_a_structured_cloudevent() -> None:
    event = {
        "specversion": "1.0",
        "type": "google.cloud.pubsub.topic.v1.messagePublished",
        "source": "//pubsub.googleapis.com/" + TOPIC,
        "id": "42",
        "data": {"message": pubsub_message(googclient_deliveryattempt="2")},
    }
    pushed = parse_push(json.dumps(event).encode(), {"content-type": "application/json"})
    assert pushed.job == JOB
    assert pushed.delivery_attempt == 2


def test_a_message_from_the_dead_letter_topic() -> None:
    message = pubsub_message(
        CloudPubSubDeadLetterSourceDeliveryCount="5",
        CloudPubSubDeadLetterSourceSubscription="worker",
    )
    pushed = parse_push(json.dumps({"message": message}).encode(), {})
    assert pushed.dead_letter_reason is not None
    assert "5 delivery attempts (worker)" in pushed.dead_letter_reason


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[]",
        b'{"subscription": "s"}',
        json.dumps({"message": {"data": "!!!", "messageId": "1"}}).encode(),
        json.dumps({"message": {"data": base64.b64encode(b"{}").decode()}}).encode(),
    ],
)
def test_a_push_without_a_job_is_refused(body: bytes) -> None:
    with pytest.raises(PushFormatError):
        parse_push(body, {})


def test_the_last_pubsub_attempt_is_known_only_when_the_push_says() -> None:
    config = GcpConfig(pubsub_max_delivery_attempts=5)
    body = {"message": pubsub_message(), "deliveryAttempt": 5}
    assert parse_delivery(json.dumps(body).encode(), {}, config).last_attempt
    body = {"message": pubsub_message(), "deliveryAttempt": 4}
    assert not parse_delivery(json.dumps(body).encode(), {}, config).last_attempt
    body = {"message": pubsub_message()}
    assert not parse_delivery(json.dumps(body).encode(), {}, config).last_attempt


# --- Cloud Tasks requests ---------------------------------------------------------------------


def test_a_cloud_tasks_request() -> None:
    headers = {
        "x-cloudtasks-taskname": "deliver-webhook-j1-1",
        "x-cloudtasks-taskretrycount": "3",
        "x-a2a-trace": "0af7651916cd43dd8448eb211c80319c;o=0",
    }
    request = parse_task_request(encode_job(JOB), headers)
    assert request.job == JOB and request.attempt == 4
    assert request.trace is not None
    assert request.trace.trace_id == "0af7651916cd43dd8448eb211c80319c"
    delivery = parse_delivery(encode_job(JOB), headers, GcpConfig(cloud_tasks_max_attempts=4))
    assert delivery.source == "cloud-tasks" and delivery.last_attempt


def test_task_names_follow_the_job_and_its_attempt() -> None:
    job = WebhookJob(
        task_id="t",
        payload=Notification("n", "c", 1, None),
        id="5d0f4c1e-2f7b-5a57-9a0e-6b1d3c2a8e41",
    )
    assert task_id(job) == "deliver-webhook-5d0f4c1e-2f7b-5a57-9a0e-6b1d3c2a8e41-1"
    assert task_id(job) == task_id(
        WebhookJob(task_id="t", payload=Notification("n", "c", 1, None), id=job.id)
    )
    assert task_id(job) != task_id(
        WebhookJob(task_id="t", payload=Notification("n", "c", 1, None), id=job.id, attempt=2)
    )
    assert task_id(OtherJob(kind="a.b/c", task_id="t", id="x")) == "a_b_c-x-1"


# --- routing ----------------------------------------------------------------------------------


class Recorder:
    def __init__(self, *, supports_delay: bool) -> None:
        self.supports_delay = supports_delay
        self.jobs: list[tuple[Job, float]] = []
        self.closed = 0

    async def enqueue(self, job: Job, *, delay_s: float = 0.0) -> None:
        self.jobs.append((job, delay_s))

    def start(self, jobs: object) -> None:
        pass

    async def aclose(self) -> None:
        self.closed += 1


async def test_routing_by_kind_and_delay() -> None:
    pubsub, tasks = Recorder(supports_delay=False), Recorder(supports_delay=True)
    queue = RoutedQueue(pubsub, routes={WEBHOOK_JOB: tasks}, delayed=tasks)
    webhook = WebhookJob(task_id="t", payload=Notification("n", "c", 1, None))
    await queue.enqueue(JOB)
    await queue.enqueue(webhook)
    await queue.enqueue(JOB, delay_s=5)
    assert pubsub.jobs == [(JOB, 0.0)]
    assert tasks.jobs == [(webhook, 0.0), (JOB, 5)]
    await queue.aclose()
    assert (pubsub.closed, tasks.closed) == (1, 1)
    assert queue.supports_delay and not RoutedQueue(pubsub).supports_delay


# --- trace context and logs -------------------------------------------------------------------


def test_trace_headers() -> None:
    assert parse_trace("105445aa7843bc8bf206b12000100000/1;o=1") == TraceContext(
        "105445aa7843bc8bf206b12000100000", "0000000000000001", True
    )
    assert parse_trace("105445aa7843bc8bf206b12000100000") == TraceContext(
        "105445aa7843bc8bf206b12000100000"
    )
    assert parse_trace("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01") == TraceContext(
        "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", True
    )
    for bad in ("", "nope", "123/abc", "00-xyz-b7ad6b7169203331-01"):
        assert parse_trace(bad) is None
    trace = TraceContext("0af7651916cd43dd8448eb211c80319c", "00000000000000ff", True)
    assert parse_trace(trace.header()) == trace


def test_log_lines_are_cloud_logging_json() -> None:
    formatter = CloudLoggingFormatter("my-project")
    record = logging.LogRecord("a2a", logging.WARNING, "/x.py", 7, "hello %s", ("you",), None)
    trace = TraceContext("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", True)
    with traced(trace), correlated(task_id="t-1", rpc_id=9):
        line = json.loads(formatter.format(record))
    assert line["severity"] == "WARNING"
    assert line["message"] == "hello you"
    assert line["time"].endswith("Z")
    assert line["logging.googleapis.com/trace"] == (
        "projects/my-project/traces/0af7651916cd43dd8448eb211c80319c"
    )
    assert line["logging.googleapis.com/spanId"] == "b7ad6b7169203331"
    assert line["logging.googleapis.com/labels"] == {"task_id": "t-1", "rpc_id": "9"}
    assert line["logging.googleapis.com/sourceLocation"]["line"] == "7"
    # Outside a request: no trace, no labels.
    plain = json.loads(formatter.format(record))
    assert "logging.googleapis.com/trace" not in plain
    assert "logging.googleapis.com/labels" not in plain


def test_a_logged_exception_is_in_the_message() -> None:
    formatter = CloudLoggingFormatter(None)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        import sys

        record = logging.LogRecord("a2a", logging.ERROR, "/x.py", 1, "failed", (), sys.exc_info())
    line = json.loads(formatter.format(record))
    assert line["severity"] == "ERROR"
    assert "Traceback" in line["message"] and "RuntimeError: boom" in line["message"]


# --- settings ---------------------------------------------------------------------------------


def test_settings_from_the_environment() -> None:
    config = GcpConfig.from_env(
        {
            "GOOGLE_CLOUD_PROJECT": "p",
            "A2A_PUBSUB_TOPIC": "jobs",
            "A2A_CLOUD_TASKS_QUEUE": "hooks",
            "A2A_CLOUD_TASKS_LOCATION": "europe-west1",
            "A2A_CLOUD_TASKS_URL": "https://worker.example.com/",
            "A2A_WORKER_OIDC_EMAILS": "a@p.iam.gserviceaccount.com, b@p.iam.gserviceaccount.com",
        }
    )
    assert config.pubsub_topic == "projects/p/topics/jobs"
    assert config.cloud_tasks_queue == "projects/p/locations/europe-west1/queues/hooks"
    assert config.worker_oidc_emails == (
        "a@p.iam.gserviceaccount.com",
        "b@p.iam.gserviceaccount.com",
    )


@pytest.mark.parametrize(
    "env",
    [
        {"A2A_PUBSUB_TOPIC": "jobs"},  # a short name without a project
        {"A2A_PUBSUB_TOPIC": "projects/p/queues/x"},
        {"A2A_CLOUD_TASKS_QUEUE": "projects/p/locations/l/queues/q"},  # no URL
        {"A2A_CLOUD_TASKS_QUEUE": "q", "A2A_GCP_PROJECT": "p", "A2A_CLOUD_TASKS_URL": "https://x"},
        {"A2A_WORKER_AUTH": "maybe"},
        {"A2A_CLOUD_TASKS_MAX_ATTEMPTS": "0"},
        {"A2A_PUBSUB_MAX_DELIVERY_ATTEMPTS": "five"},
    ],
)
def test_bad_settings_fail_at_start_up(env: dict[str, str]) -> None:
    with pytest.raises(ConfigError):
        GcpConfig.from_env(env)


def test_a_worker_without_an_auth_setting_refuses_to_start() -> None:
    with pytest.raises(ConfigError, match="A2A_WORKER_AUTH"):
        WorkerAuth(GcpConfig())
    with pytest.raises(ConfigError, match="A2A_WORKER_OIDC_EMAILS"):
        WorkerAuth(GcpConfig(worker_auth="oidc", worker_oidc_audience="https://w"))


# --- worker authentication --------------------------------------------------------------------


async def test_the_shared_secret() -> None:
    auth = WorkerAuth(GcpConfig(worker_secret="s3cret"))
    assert await auth.check({"x-a2a-worker-secret": "s3cret"}, "") is None
    assert await auth.check({}, "token=s3cret") is None
    missing = await auth.check({}, "")
    wrong = await auth.check({}, "token=nope")
    assert missing is not None and missing.status == 401
    assert wrong is not None and wrong.status == 403


@pytest.fixture
async def google_keys() -> AsyncIterator[tuple[Any, str]]:
    """A private key and the URL of a loopback JWKS publishing its public half."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    jwk.update(kid="k1", alg="RS256", use="sig")
    body = json.dumps({"keys": [jwk]}).encode()
    server = await WebhookServer(
        lambda _: Reply(body=body, headers={"Content-Type": "application/json"})
    ).start()
    try:
        yield key, server.url("/certs")
    finally:
        await server.stop()


def id_token(key: Any, **claims: Any) -> str:
    now = int(time.time())
    payload = {
        "iss": "https://accounts.google.com",
        "aud": "https://worker.example.com/",
        "sub": "1234",
        "email": "pusher@p.iam.gserviceaccount.com",
        "email_verified": True,
        "iat": now,
        "exp": now + 300,
        **claims,
    }
    return jwt.encode(payload, key, algorithm="RS256", headers={"kid": "k1"})


async def test_google_id_tokens(google_keys: tuple[Any, str]) -> None:
    key, jwks_url = google_keys
    auth = WorkerAuth(
        GcpConfig(
            worker_auth="oidc",
            worker_oidc_audience="https://worker.example.com/",
            worker_oidc_emails=("pusher@p.iam.gserviceaccount.com",),
            worker_oidc_jwks_url=jwks_url,
        )
    )

    async def check(token: str | None) -> int | None:
        headers = {} if token is None else {"authorization": f"Bearer {token}"}
        denied = await auth.check(headers, "")
        return None if denied is None else denied.status

    assert await check(id_token(key)) is None
    assert await check(None) == 401
    assert await check(id_token(key, aud="https://elsewhere.example.com/")) == 401
    assert await check(id_token(key, iss="https://evil.example.com")) == 401
    assert await check(id_token(key, exp=int(time.time()) - 3600)) == 401
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert await check(id_token(other)) == 401
    assert await check(id_token(key, email="someone@else.com")) == 403
    assert await check(id_token(key, email_verified=False)) == 403


# --- building the functions -------------------------------------------------------------------


def test_the_http_function_of_a_module_needs_no_worker_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from a2a_serverless import Settings, agent
    from a2a_serverless_gcp import http_function, worker_function

    @agent(name="Echo")
    def echo(text: str) -> str:
        return text

    config = GcpConfig(pubsub_topic=TOPIC)
    settings = Settings(store_url="memory://")
    options: dict[str, Any] = {"settings": settings, "config": config, "configure_logging": False}
    # functions-framework serving `a2a` from a main.py that defines both functions:
    monkeypatch.setenv("FUNCTION_TARGET", "a2a")
    assert callable(http_function(echo, **options))
    assert callable(worker_function(echo, **options))
    # ... and serving the worker, whose missing settings fail at start-up.
    monkeypatch.setenv("FUNCTION_TARGET", "worker")
    with pytest.raises(ConfigError, match="A2A_WORKER_AUTH"):
        worker_function(echo, **options)


# --- jobs queued by the previous version --------------------------------------------------------


@pytest.mark.parametrize("shape", list(PREVIOUS))
def test_a_pubsub_push_of_a_job_the_previous_version_queued(shape: str) -> None:
    data = base64.b64encode(PREVIOUS[shape].encode()).decode()
    body = {"message": {"data": data, "messageId": "7"}, "subscription": "s"}
    assert parse_push(json.dumps(body).encode(), {}).job == decode_job(PREVIOUS[shape])


@pytest.mark.parametrize("shape", list(PREVIOUS))
def test_a_cloud_tasks_request_of_a_job_the_previous_version_queued(shape: str) -> None:
    headers = {"x-cloudtasks-taskname": "t", "x-cloudtasks-taskretrycount": "0"}
    request = parse_task_request(PREVIOUS[shape].encode(), headers)
    assert request.job == decode_job(PREVIOUS[shape])


def test_the_worker_given_the_app_names_callbacks_under_its_prefix(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker sends durable calls, whose callbacks are under A2A_PUBLIC_URL + the mount's
    prefix (the HTTP function's route): given the app by reference, as entry_points does, it
    imports it when its first call names its callback."""
    import sys

    from a2a_serverless import Settings
    from a2a_serverless.queue.inprocess import InProcessQueue
    from a2a_serverless_gcp import functions
    from tests.support.fastapi_apps import app_by_reference

    built: list[functions.Deployment] = []

    class Kept(functions.Deployment):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            built.append(self)

    monkeypatch.setattr(functions, "Deployment", Kept)
    monkeypatch.setenv("FUNCTION_TARGET", "a2a")  # no worker auth to set up: never invoked
    lazy, reference = app_by_reference(tmp_path, monkeypatch)
    public = "https://agent-abc-ew.a.run.app"
    functions.make_worker_handler(
        lazy,
        app=reference,
        settings=Settings(store_url="memory://", public_url=public),
        gcp=GcpConfig(pubsub_topic=TOPIC),
        configure_logging=False,
        queue=InProcessQueue(),
    )
    (deployment,) = built
    assert "lazy_mounted_api" not in sys.modules
    calls = deployment.runtime().durable_calls.resumer.calls
    assert calls.callback_url("task-1", "cb-1") == f"{public}/lazy/_a2a/callbacks/task-1/cb-1"
