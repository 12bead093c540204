"""SnapStart (a2a_serverless_aws.snapstart): the hooks run the way the runtime runs them.

- Under the real runtime client (awslambdaric, AWS_LAMBDA_INITIALIZATION_TYPE=snap-start, the
  local Runtime API holding the "snapshot"): after init the process holds no connection to
  DynamoDB or SQS while it waits to be snapshotted (priming had opened one), its after-restore
  hook opens a fresh one, and the restored process serves: a message/send written to DynamoDB
  and queued on SQS, a tasks/get reading it back.
- In this process, with awslambdaric's own hook runner: what after_restore refreshes (random
  state, fetched JWKS ages, the webhook hosts' rate buckets) and that the handler still serves.
"""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import snapshot_restore_py
from awslambdaric import lambda_runtime_hooks_runner

from a2a_serverless import Settings, agent
from a2a_serverless.auth import BearerJWTAuthenticator, Security
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_aws import make_http_handler
from a2a_serverless_aws.config import AwsSettings
from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import http_api_event, response_json
from tests.aws.runtime.inprocess import FakeContext
from tests.aws.runtime.runtime_api import LambdaFunction
from tests.integration.jsonrpc_agents import request, user_message

pytestmark = pytest.mark.aws

SNAP_START = {"AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start"}
HTTP_TIMING = {"A2A_LAMBDA_TIMEOUT_S": "10", "A2A_BLOCKING_TIMEOUT_S": "5"}


def rpc(method: str, params: Any) -> dict[str, Any]:
    return http_api_event("POST", "/", request(method, params))


def send(text: str) -> dict[str, Any]:
    return rpc(
        "message/send", {"message": user_message(text), "configuration": {"blocking": False}}
    )


def connections_to(pid: int, port: int) -> int:
    """How many established TCP connections process `pid` has to 127.0.0.1:`port`."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        match = re.fullmatch(r"socket:\[(\d+)\]", target)
        if match:
            inodes.add(match.group(1))
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            remote_port = int(fields[2].rsplit(":", 1)[1], 16)
            established = fields[3] == "01"
            if established and remote_port == port and fields[9] in inodes:
                count += 1
    return count


def test_a_restored_function_starts_without_the_snapshots_connections_and_serves(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    store_url: str,
    moto_endpoint: str,
) -> None:
    queues = make_queues()
    env = {**function_env, **HTTP_TIMING, **SNAP_START, "A2A_SQS_QUEUE_URL": queues.url}
    function = make_function("http_handler", env, timeout_s=10, name="http-snapstart")
    api, process = function.api, function.process
    assert api is not None and process is not None
    assert api.restore_requested.wait(60), f"no restore request after init\n{function.logs()}"
    dynamodb_port = int(re.search(r"endpoint=[^&]*%3A(\d+)", store_url).group(1))  # type: ignore[union-attr]
    sqs_port = urlparse(moto_endpoint).port
    assert sqs_port is not None
    # "Snapshotted": init primed the DynamoDB client (it opened a connection), the hook closed it.
    assert connections_to(process.pid, dynamodb_port) == 0
    assert connections_to(process.pid, sqs_port) == 0

    api.restore_released.set()
    deadline = time.monotonic() + 30
    while connections_to(process.pid, dynamodb_port) == 0:  # after_restore primes anew
        assert time.monotonic() < deadline, f"no connection after restore\n{function.logs()}"
        time.sleep(0.05)
    assert api.restore_errors == []

    task = response_json(function.invoke(send("hello after restore")))["result"]
    assert task["status"]["state"] == "submitted"
    fetched = response_json(function.invoke(rpc("tasks/get", {"id": task["id"]})))["result"]
    assert fetched["id"] == task["id"]
    # The turn's job went to SQS through the client the snapshot held.
    received = sqs.receive_message(
        QueueUrl=queues.url, MessageAttributeNames=["All"], WaitTimeSeconds=1
    )["Messages"]
    assert [m["MessageAttributes"]["taskId"]["StringValue"] for m in received] == [task["id"]]


@agent(name="Echo", description="Says back what it is told.")
def echo(text: str) -> str:
    return text


def test_the_hooks_as_the_runtime_runs_them_refresh_what_a_copy_must_not_share(
    monkeypatch: pytest.MonkeyPatch, store_url: str, signing_keys: str
) -> None:
    pytest.importorskip("cryptography")
    monkeypatch.setattr(snapshot_restore_py, "_before_snapshot_registry", [])
    monkeypatch.setattr(snapshot_restore_py, "_after_restore_registry", [])
    for name, value in SNAP_START.items():
        monkeypatch.setenv(name, value)
    bearer = BearerJWTAuthenticator(
        issuer="https://issuer.example", audience="agent", jwks_url="https://issuer.example/jwks"
    )
    queue = InProcessQueue()
    handler = make_http_handler(
        echo,
        Settings(store_url=store_url, push_signing_keys=signing_keys),
        AwsSettings(),
        queue=queue,
        security=Security([bearer]),
    )
    try:
        assert len(snapshot_restore_py.get_before_snapshot()) == 1
        assert len(snapshot_restore_py.get_after_restore()) == 1
        store: Any = handler.container.runtime.store
        pools = store.client._endpoint.http_session._manager.pools
        assert len(pools) == 1  # priming's connection pool

        # What a process might hold when snapshotted: keys fetched a moment ago, a host's bucket.
        bearer.keys._fetched_at = time.monotonic()
        bearer.keys._fetched_url = "https://issuer.example/jwks"
        notifier = handler.container.runtime.notifier
        assert notifier is not None
        notifier.host_limiter.reserve("receiver.example")

        lambda_runtime_hooks_runner.run_before_snapshot()
        assert len(pools) == 0
        snapshotted = random.getstate()
        lambda_runtime_hooks_runner.run_after_restore()

        assert random.getstate() != snapshotted
        assert not bearer.keys._fresh("https://issuer.example/jwks")
        assert notifier.host_limiter._buckets == {}
        assert len(pools) == 1  # primed again
        context = FakeContext(remaining_ms=30_000)
        card = handler(http_api_event("GET", "/.well-known/agent-card.json"), context)
        assert card["statusCode"] == 200 and response_json(card)["name"] == "Echo"
        # No token: the authenticator answers (401), it does not fail.
        assert handler(send("after restore"), context)["statusCode"] == 401
    finally:
        handler.close()
