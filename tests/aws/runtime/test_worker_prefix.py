"""The SQS worker of an agent mounted in a FastAPI app knows the mount's prefix: it is what
sends durable calls, whose callbacks are under `A2A_PUBLIC_URL` + the prefix (the HTTP
function's route). A unit test: the worker handler is built, not invoked (nothing is sent)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from a2a_serverless.config import Settings
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_aws import AwsSettings, entry_points, make_worker_handler
from tests.support.fastapi_apps import app_by_reference, greeting_app
from tests.unit.test_mount_prefix import echo

pytestmark = pytest.mark.aws

PUBLIC = "https://abc123.execute-api.eu-west-1.amazonaws.com"
QUEUE_URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs"


def callback_url(handler: object) -> str | None:
    runtime = handler.runtime  # type: ignore[attr-defined]
    url: str | None = runtime.durable_calls.resumer.calls.callback_url("task-1", "cb-1")
    return url


def test_the_worker_given_the_app_names_callbacks_under_its_prefix() -> None:
    handler = make_worker_handler(
        echo,
        Settings(store_url="memory://", public_url=PUBLIC),
        AwsSettings(lambda_timeout_s=60, prime=False),
        app=greeting_app(echo),
        queue=InProcessQueue(),
    )
    assert handler.runtime.public_prefix == "/agent"
    assert callback_url(handler) == f"{PUBLIC}/agent/_a2a/callbacks/task-1/cb-1"


def test_entry_points_give_the_worker_the_app_by_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the template's aws_lambda.py does: `entry_points(__name__, agent, app="...:api")`; the
    worker imports the app when its first call names its callback, not at init."""
    lazy, reference = app_by_reference(tmp_path, monkeypatch)
    for name, value in {
        "A2A_SQS_QUEUE_URL": QUEUE_URL,
        "A2A_LAMBDA_TIMEOUT_S": "60",
        "A2A_PRIME": "false",
        "A2A_STORE_URL": "memory://",
        "A2A_PUBLIC_URL": PUBLIC,
        "AWS_DEFAULT_REGION": "eu-west-1",
    }.items():
        monkeypatch.setenv(name, value)
    module = types.ModuleType("lazy_aws_lambda")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    entry_points(module.__name__, lazy, app=reference)
    worker = module.worker
    assert "lazy_mounted_api" not in sys.modules
    assert callback_url(worker) == f"{PUBLIC}/lazy/_a2a/callbacks/task-1/cb-1"
