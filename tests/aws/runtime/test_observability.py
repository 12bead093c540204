"""Logs, metrics, tracing and import costs of the Lambda entry points."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from a2a_serverless.observability import Signal, correlated
from a2a_serverless_aws.logs import CorrelationFilter, LoggerRelay, configure_logging
from a2a_serverless_aws.metrics import MetricsObserver
from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import http_api_event, response_json
from tests.aws.runtime.runtime_api import REPO, LambdaFunction
from tests.integration.jsonrpc_agents import user_message

pytestmark = pytest.mark.aws

# botocore's package itself is tiny (powertools imports it); its client machinery is not.
HEAVY = (
    "boto3",
    "botocore.client",
    "mangum",
    "aws_lambda_powertools",
    "pynamodb",
    "uvicorn",
    "aws_xray_sdk",
)


def imported_after(code: str) -> set[str]:
    """The top-level packages among HEAVY that are loaded after running `code`, fresh."""
    script = (
        f"import sys\n{code}\nprint(','.join(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    # The last line: the handler's own (JSON) logs go to stdout before it.
    last = out.stdout.splitlines()[-1] if out.stdout.strip() else ""
    return set(filter(None, last.split(",")))


def test_importing_the_package_loads_no_sdk() -> None:
    assert imported_after("import a2a_serverless_aws") == set()


def test_handler_modules_load_only_what_they_use_at_import() -> None:
    assert imported_after("import a2a_serverless_aws.lambda_http") == set()
    # The worker always processes batches: powertools' batch utility is its one import.
    assert imported_after("import a2a_serverless_aws.lambda_worker") == {"aws_lambda_powertools"}


def test_building_the_http_handler_loads_boto3_only_to_prime_the_queue() -> None:
    code = (
        "from a2a_serverless import agent, Settings\n"
        "from a2a_serverless_aws import make_http_handler, AwsSettings\n"
        "@agent(name='a', description='d')\n"
        "def a(text: str) -> str:\n    return text\n"
        "make_http_handler(a, Settings(store_url='memory://'),"
        " AwsSettings(sqs_queue_url='https://sqs.us-east-1.amazonaws.com/1/q', prime={prime}))\n"
    )
    # Primed (the default), init makes the SQS client the first job would otherwise pay for.
    # Mangum is built on the first event that needs it (REST API, ALB), never at init.
    assert imported_after(code.format(prime=True)) == {
        "aws_lambda_powertools",
        "boto3",
        "botocore.client",
    }
    assert imported_after(code.format(prime=False)) == {"aws_lambda_powertools"}


def test_records_carry_the_task_and_request_ids_of_their_context() -> None:
    record = logging.LogRecord("a2a_serverless.worker", logging.INFO, __file__, 1, "m", (), None)
    with correlated(task_id="task-9", rpc_id=4):
        CorrelationFilter().filter(record)
    assert (record.task_id, record.rpc_id) == ("task-9", "4")  # type: ignore[attr-defined]
    outside = logging.LogRecord("x", logging.INFO, __file__, 1, "m", (), None)
    CorrelationFilter().filter(outside)
    assert not hasattr(outside, "task_id")


def test_the_kit_loggers_go_through_the_powertools_handler_once() -> None:
    first = configure_logging("svc")
    second = configure_logging("svc")
    kit = logging.getLogger("a2a_serverless")
    relays = [h for h in kit.handlers if isinstance(h, LoggerRelay) and h.service == "svc"]
    assert len(relays) == 1 and relays[0].logger is first
    assert first.registered_handler is second.registered_handler
    assert kit.propagate is False


def test_signals_become_emf_metrics(capsys: pytest.CaptureFixture[str]) -> None:
    observer = MetricsObserver("svc", namespace="a2a-tests")
    observer.observe(Signal("task.submitted", "t"))
    observer.observe(Signal("task.working", "t"))  # not counted
    observer.observe(Signal("task.completed", "t", duration_s=1.5))
    observer.observe(Signal("webhook.retrying", "t", duration_s=0.2))
    observer.flush()
    observer.flush()  # nothing more to say: no second line, no warning
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    emf = json.loads(line)
    names = {m["Name"] for m in emf["_aws"]["CloudWatchMetrics"][0]["Metrics"]}
    assert names == {
        "TasksStarted",
        "TasksCompleted",
        "TaskDuration",
        "WebhooksRetrying",
        "WebhookAttemptDuration",
    }
    assert emf["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "a2a-tests"
    assert emf["TaskDuration"] == [1.5]


def test_tracing_sends_segments_under_the_lambda_runtime(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
) -> None:
    # With A2A_TRACING=true the powertools Tracer wraps the handler: a sampled invocation sends
    # its subsegment to the X-Ray daemon's address (here a UDP socket of the test).
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as daemon:
        daemon.bind(("127.0.0.1", 0))
        daemon.settimeout(20)
        env = {
            **function_env,
            "A2A_SQS_QUEUE_URL": make_queues().url,
            "A2A_TRACING": "true",
            "AWS_XRAY_DAEMON_ADDRESS": f"127.0.0.1:{daemon.getsockname()[1]}",
        }
        http = make_function("http_handler", env, timeout_s=30, name="traced", trace_sampled=True)
        response = http.invoke(http_api_event("GET", "/.well-known/agent-card.json"))
        assert response["statusCode"] == 200
        assert response_json(response)["name"] == "Tester"
        datagram, _ = daemon.recvfrom(65536)
        # A request that sends a job: the SQS call (in a thread) is traced as well.
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "message/send",
            "params": {"message": user_message("traced"), "configuration": {"blocking": False}},
        }
        sent = http.invoke(http_api_event("POST", "/", body))
        assert response_json(sent)["result"]["status"]["state"] == "submitted"
        # Subsegments made in other threads (the SQS and DynamoDB calls) come on their own.
        segments: list[dict[str, Any]] = []
        daemon.settimeout(2)
        with contextlib.suppress(TimeoutError):
            while True:
                segments.append(json.loads(daemon.recvfrom(65536)[0].decode().partition("\n")[2]))
    header, _, segment = datagram.decode().partition("\n")
    assert json.loads(header) == {"format": "json", "version": 1}
    assert json.loads(segment)["name"] == "## lambda_handler"
    names = {s["name"] for s in segments}
    assert {"## lambda_handler", "sqs", "dynamodb"} <= names, names
    assert "cannot find the current segment" not in http.logs().lower()
