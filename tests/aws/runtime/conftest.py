"""Fixtures for the Lambda/SQS tests: a real moto server, SQS queues with a DLQ, functions run
under the real Lambda runtime client, and the store they share.

- `moto_endpoint` (session, from tests/aws/conftest.py): the moto server.
- `sqs`: a boto3 SQS client on that server; `make_queues()` makes a queue and its dead-letter
  queue (redrive policy) with fresh names.
- `store_url`: where the functions keep tasks: the DynamoDB Local table of tests/aws/conftest.py
  (`dynamodb_store_url`), shared by the test and the functions' processes.
- `make_function(handler, env)`: a `LambdaFunction` (tests/aws/runtime/runtime_api.py) running
  `tests.aws.runtime.functions.<handler>` under awslambdaric; stopped at the end of the test.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.aws.runtime.events import Queues, create_queues
from tests.aws.runtime.runtime_api import LambdaFunction
from tests.support.server import free_port  # noqa: F401 (tests import it from here)

REGION = "us-east-1"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}


def wait_for_http(url: str, process: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        if process.poll() is not None:
            raise RuntimeError(
                f"{process.args!r} exited with {process.returncode}:\n{log.read_text()}"
            )
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=1):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} not up after {timeout_s} s:\n{log.read_text()}")
        time.sleep(0.1)


@pytest.fixture(scope="session")
def sqs(moto_endpoint: str) -> Any:
    import boto3  # type: ignore[import-untyped]

    return boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION
    ).client("sqs", endpoint_url=moto_endpoint)


@pytest.fixture
def make_queues(sqs: Any) -> Callable[..., Queues]:
    def make(*, max_receive_count: int = 3, visibility_timeout_s: int = 4) -> Queues:
        return create_queues(
            sqs, max_receive_count=max_receive_count, visibility_timeout_s=visibility_timeout_s
        )

    return make


@pytest.fixture
def store_url(dynamodb_store_url: str) -> str:
    """The DynamoDB Local table of tests/aws/conftest.py (tests use fresh task ids)."""
    return dynamodb_store_url


@pytest.fixture(scope="session")
def signing_keys() -> str:
    from a2a_serverless.push.keys import generate_keys_json

    return generate_keys_json()


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    path = tmp_path / "runs"
    path.mkdir()
    return path


@pytest.fixture
def function_env(
    moto_endpoint: str, store_url: str, signing_keys: str, runs_dir: Path
) -> dict[str, str]:
    """What every test function is configured with (a test adds its queue and timing)."""
    return {
        **CREDENTIALS,
        "AWS_ENDPOINT_URL_SQS": moto_endpoint,
        "A2A_STORE_URL": store_url,
        "A2A_DEV_MODE": "true",  # loopback http webhooks for the test receiver
        "A2A_PUSH_SIGNING_KEYS": signing_keys,
        "A2A_POLL_INTERVAL_S": "0.05",
        "POWERTOOLS_SERVICE_NAME": "tester",
        "POWERTOOLS_METRICS_NAMESPACE": "a2a-tests",
        "TEST_RUNS_DIR": str(runs_dir),
    }


@pytest.fixture
def make_function(tmp_path: Path) -> Iterator[Callable[..., LambdaFunction]]:
    started: list[LambdaFunction] = []

    def make(
        handler: str, env: dict[str, str], *, timeout_s: float, name: str, **options: Any
    ) -> LambdaFunction:
        function = LambdaFunction(
            f"tests.aws.runtime.functions.{handler}",
            env=env,
            log_dir=tmp_path,
            timeout_s=timeout_s,
            name=name,
            **options,
        )
        started.append(function)
        return function.start()

    yield make
    for function in started:
        function.stop()


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process handlers must not pick up settings or AWS endpoints from the machine."""
    for name in list(os.environ):
        if name.startswith(("A2A_", "AWS_ENDPOINT_URL", "AWS_PROFILE", "AWS_SESSION_TOKEN")):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    for name, value in CREDENTIALS.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """In-process handlers route the kit's loggers through powertools (propagate off); put
    logging back as it was, or later tests' caplog would see none of the kit's records."""
    loggers = [logging.getLogger(name) for name in ("a2a_serverless", "a2a_serverless_aws")]
    saved = [(lg, list(lg.handlers), lg.level, lg.propagate) for lg in loggers]
    root_filters = {handler: list(handler.filters) for handler in logging.root.handlers}
    yield
    for lg, handlers, level, propagate in saved:
        lg.handlers = handlers
        lg.setLevel(level)
        lg.propagate = propagate
    for handler, filters in root_filters.items():
        handler.filters = filters
