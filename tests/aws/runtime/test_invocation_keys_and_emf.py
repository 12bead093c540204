"""The per-invocation work of the Lambda handlers, kept small: the Lambda context's log keys set
without rebuilding the Logger's state (logs.with_lambda_context), and the EMF document written
by the adapter itself, the same one powertools' Metrics prints (metrics.py)."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from a2a_serverless.observability import Signal, correlated
from a2a_serverless_aws import logs
from a2a_serverless_aws.logs import configure_logging, with_lambda_context
from a2a_serverless_aws.metrics import COUNTS, MAX_DIRECTIVES, MAX_VALUES, MetricsObserver

pytestmark = pytest.mark.aws


class Context:
    function_name = "agent-http"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:agent-http"

    def __init__(self, request_id: str) -> None:
        self.aws_request_id = request_id

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


@pytest.fixture
def log_lines(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """What the kit's loggers print, through the powertools handler."""
    logger = configure_logging("keys-test")
    stream = io.StringIO()
    previous = logger.registered_handler.setStream(stream)
    monkeypatch.setattr(logs, "_cold_start", True)
    try:
        yield stream
    finally:
        logger.registered_handler.setStream(previous)  # type: ignore[arg-type]


def records(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.startswith("{")]


def test_each_invocation_logs_its_request_id_and_only_the_first_is_cold(
    log_lines: io.StringIO,
) -> None:
    kit = logging.getLogger("a2a_serverless.test")

    def lambda_handler(event: dict[str, Any], context: Any) -> str:
        with correlated(task_id=event["task"]):
            kit.info("handling")
        return str(event["task"])

    entry = with_lambda_context(configure_logging("keys-test"), lambda_handler)
    assert entry.__name__ == "lambda_handler"  # the Tracer names its segment after it
    assert entry({"task": "t1"}, Context("req-1")) == "t1"
    assert entry({"task": "t2"}, Context("req-2")) == "t2"
    first, second = records(log_lines)
    assert (first["function_request_id"], first["cold_start"], first["task_id"]) == (
        "req-1",
        True,
        "t1",
    )
    assert (second["function_request_id"], second["cold_start"], second["task_id"]) == (
        "req-2",
        False,
        "t2",
    )
    for record in (first, second):
        assert record["function_name"] == "agent-http"
        assert record["function_memory_size"] == 512
        assert record["function_arn"] == Context.invoked_function_arn
        assert record["message"] == "handling" and record["level"] == "INFO"


def test_provisioned_concurrency_is_never_a_cold_start(
    log_lines: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "provisioned-concurrency")

    def lambda_handler(event: Any, context: Any) -> None:
        logging.getLogger("a2a_serverless.test").info("warm")

    with_lambda_context(configure_logging("keys-test"), lambda_handler)({}, Context("req-9"))
    (record,) = records(log_lines)
    assert record["cold_start"] is False


def emf_lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    out = capsys.readouterr().out
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def test_the_document_is_the_one_powertools_prints(capsys: pytest.CaptureFixture[str]) -> None:
    from aws_lambda_powertools import Metrics

    signals = [
        Signal("task.submitted", "t"),
        Signal("task.completed", "t", duration_s=1.5),
        Signal("task.completed", "u", duration_s=2.5),
        Signal("webhook.dead-lettered", "t"),
    ]
    ours = MetricsObserver("svc", namespace="a2a-tests")
    for signal in signals:
        ours.observe(signal)
    ours.flush()
    (mine,) = emf_lines(capsys)

    reference = Metrics(namespace="a2a-tests", service="svc")
    for name, unit, value in [
        ("TasksStarted", "Count", 1),
        ("TasksCompleted", "Count", 1),
        ("TaskDuration", "Seconds", 1.5),
        ("TasksCompleted", "Count", 1),
        ("TaskDuration", "Seconds", 2.5),
        ("WebhooksDeadLettered", "Count", 1),
    ]:
        reference.add_metric(name=name, unit=unit, value=value)
    reference.flush_metrics()
    (theirs,) = emf_lines(capsys)
    for document in (mine, theirs):
        assert isinstance(document["_aws"].pop("Timestamp"), int)
    assert mine == theirs


def test_a_metric_with_many_values_is_split_into_several_documents(
    capsys: pytest.CaptureFixture[str],
) -> None:
    observer = MetricsObserver("svc", namespace="a2a-tests")
    for _ in range(MAX_VALUES + 5):
        observer.observe(Signal("task.submitted", "t"))
    observer.flush()
    documents = emf_lines(capsys)
    assert [len(d["TasksStarted"]) for d in documents] == [MAX_VALUES, 5]


def test_each_set_of_metric_names_gets_its_own_directive_and_few_are_kept(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The directive's text is kept per set of names, in the order their values came: every
    # order gives its own Metrics list, and past MAX_DIRECTIVES sets they are made each time.
    observer = MetricsObserver('a "quoted" svc', namespace="a2a-tests")
    signals = list(COUNTS)
    orders = [signals[i:] + signals[:i] for i in range(len(signals))] * 4
    assert len(orders) > MAX_DIRECTIVES
    for order in orders:
        for name in order:
            observer.observe(Signal(name, "t"))
        observer.flush()
    documents = emf_lines(capsys)
    assert len(documents) == len(orders)
    for order, document in zip(orders, documents, strict=True):
        metrics = document["_aws"]["CloudWatchMetrics"][0]["Metrics"]
        assert [metric["Name"] for metric in metrics] == [COUNTS[name] for name in order]
        assert document["service"] == 'a "quoted" svc'
        assert all(document[COUNTS[name]] == [1.0] for name in order)
    assert len(observer._directives) <= MAX_DIRECTIVES


@pytest.mark.parametrize(
    ("env", "printed"),
    [
        ({"POWERTOOLS_METRICS_DISABLED": "true"}, False),
        ({"POWERTOOLS_DEV": "true"}, False),
        ({"POWERTOOLS_DEV": "true", "POWERTOOLS_METRICS_DISABLED": "false"}, True),
        ({}, True),
    ],
)
def test_metrics_can_be_turned_off_as_with_powertools(
    env: dict[str, str],
    printed: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in ("POWERTOOLS_METRICS_DISABLED", "POWERTOOLS_DEV"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    observer = MetricsObserver("svc")
    observer.observe(Signal("task.submitted", "t"))
    observer.flush()
    assert bool(emf_lines(capsys)) is printed


LEVEL_VARIABLES = (
    "AWS_LAMBDA_LOG_LEVEL",
    "POWERTOOLS_LOG_LEVEL",
    "LOG_LEVEL",
    "POWERTOOLS_LOGGER_SAMPLE_RATE",
    "POWERTOOLS_LOGGER_LOG_EVENT",
)


@pytest.mark.parametrize(
    "variables",
    [
        {},
        {"POWERTOOLS_LOG_LEVEL": "debug"},
        {"POWERTOOLS_LOG_LEVEL": "WARNING"},
        {"LOG_LEVEL": "ERROR"},
        {"AWS_LAMBDA_LOG_LEVEL": "WARN"},
        {"AWS_LAMBDA_LOG_LEVEL": "FATAL"},
        {"AWS_LAMBDA_LOG_LEVEL": "TRACE"},
    ],
)
def test_the_level_before_the_logger_is_built_is_the_one_powertools_takes(
    variables: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from aws_lambda_powertools import Logger

    for name in LEVEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    service = "level-" + "-".join(f"{k}={v}" for k, v in variables.items())
    assert logs._level_without_powertools() == Logger(service=service).log_level


@pytest.mark.parametrize(
    "variables",
    [
        {"POWERTOOLS_LOG_LEVEL": "INFO", "AWS_LAMBDA_LOG_LEVEL": "WARN"},  # powertools warns
        {"POWERTOOLS_LOGGER_SAMPLE_RATE": "0.5"},  # drawn when the Logger is made
        {"POWERTOOLS_LOGGER_LOG_EVENT": "true"},  # the first invocation logs anyway
        {"POWERTOOLS_LOG_LEVEL": "LOUD"},  # powertools raises
    ],
)
def test_what_only_powertools_can_say_builds_the_logger_at_once(
    variables: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in LEVEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert logs._level_without_powertools() is None
