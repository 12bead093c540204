"""The Lambda handlers built in the test process, for tests that need to look inside.

Handlers are synchronous and own an event loop (as in Lambda), so async tests build and call
them in a worker thread (`asyncio.to_thread`), never on the test's own loop.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from a2a_serverless.agent import Agent
from a2a_serverless.config import Settings
from a2a_serverless_aws import AwsSettings, SqsQueue, make_http_handler, make_worker_handler
from a2a_serverless_aws.lambda_http import HttpHandler
from a2a_serverless_aws.lambda_worker import WorkerHandler


@dataclass
class FakeContext:
    """The parts of Lambda's context object the handlers and powertools read."""

    remaining_ms: int = 10_000
    function_name: str = "in-process"
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:in-process"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


class RecordingClient:
    """A real boto3 SQS client that remembers each SendMessage request it makes."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.sent: list[dict[str, Any]] = []

    def send_message(self, **request: Any) -> Any:
        self.sent.append(request)
        return self.client.send_message(**request)


@dataclass
class Handlers:
    http: HttpHandler
    worker: WorkerHandler
    client: RecordingClient

    def call_http(self, event: dict[str, Any], **context: Any) -> dict[str, Any]:
        return self.http(event, FakeContext(**{"remaining_ms": 30_000, **context}))

    def call_worker(self, event: dict[str, Any], **context: Any) -> dict[str, Any]:
        return self.worker(event, FakeContext(**{"remaining_ms": 4_000, **context}))


def settings(store_url: str, signing_keys: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "store_url": store_url,
        "dev_mode": True,
        "push_signing_keys": signing_keys,
        "blocking_timeout_s": 5.0,
        "poll_interval_s": 0.05,
        "worker_lease_s": 5.0,
        "push_timeout_s": 2.0,
        "push_backoff_base_s": 0.5,
        "push_backoff_max_s": 1.0,
    }
    values.update(overrides)
    return Settings(**values)


@contextmanager
def handlers(
    agent: Agent,
    store_url: str,
    signing_keys: str,
    queue_url: str,
    sqs: Any,
    *,
    max_receive_count: int = 3,
    worker_options: dict[str, Any] | None = None,
    app: Any = None,
    http_settings: dict[str, Any] | None = None,
) -> Iterator[Handlers]:
    """An HTTP and a worker handler on one queue, built in the calling thread; with `app` (a
    FastAPI app holding `agent`), the HTTP handler serves that app; `http_settings` override
    the HTTP handler's settings."""
    client = RecordingClient(sqs)
    aws = AwsSettings(
        sqs_queue_url=queue_url,
        sqs_max_receive_count=max_receive_count,
        lambda_timeout_s=4,
        lambda_timeout_margin_s=1,
    )
    http = make_http_handler(
        agent,
        # A generous wait: a buffered stream ends as soon as its task does.
        settings(store_url, signing_keys, **{"blocking_timeout_s": 20.0, **(http_settings or {})}),
        AwsSettings(sqs_queue_url=queue_url, lambda_timeout_s=30),
        app=app,
        queue=SqsQueue(queue_url, client=client),
    )
    worker = make_worker_handler(
        agent,
        settings(store_url, signing_keys),
        aws,
        queue=SqsQueue(queue_url, client=client),
        **(worker_options or {}),
    )
    try:
        yield Handlers(http, worker, client)
    finally:
        http.close()
        worker.close()


@asynccontextmanager
async def handlers_in_thread(*args: Any, **kwargs: Any) -> AsyncIterator[Handlers]:
    """`handlers(...)` entered and left in a worker thread (for async tests)."""
    manager = handlers(*args, **kwargs)
    built = await asyncio.to_thread(manager.__enter__)
    try:
        yield built
    finally:
        await asyncio.to_thread(manager.__exit__, None, None, None)
