"""a2a-sdk AgentExecutors (tests/a2a_sdk: the sample-style ones, a2a-sdk 0.3.x) on the Google
Cloud path: the HTTP function and the Pub/Sub-pushed worker under functions-framework, tasks in
the Firestore emulator, webhooks through Cloud Tasks. The scenarios are tests/a2a_sdk/
scenarios.py's; the cancel reaches the executor from the other function's process.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.a2a_sdk import scenarios
from tests.gcp.runtime.conftest import Deployment, deploy
from tests.push.webhook_server import WebhookServer

pytestmark = pytest.mark.gcp

SOURCE = Path(__file__).with_name("sdk_main.py")


class GcpDeployment:
    def __init__(self, deployment: Deployment, log: Path, client: httpx.AsyncClient) -> None:
        self.deployment = deployment
        self.log = log
        self.client = client

    async def rpc(self, method: str, params: Any, *, version: str = "0.3") -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        response = await self.client.post(
            self.deployment.http.url + "/", json=body, headers={"A2A-Version": version}
        )
        assert response.status_code == 200, response.text
        payload: dict[str, Any] = response.json()
        return payload

    async def pump(self) -> None:
        await asyncio.sleep(0.1)


@pytest.fixture(scope="module")
def sdk_deployment(
    pubsub_emulator: str,
    cloud_tasks_emulator: str,
    firestore_emulator: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Deployment, Path]]:
    log_dir = tmp_path_factory.mktemp("sdk-functions")
    log = log_dir / "executors.log"
    # The worker reads a running task every 0.2 s to see a cancel the HTTP function wrote; a
    # lease longer than the slow sample's wait.
    overrides = {"SDK_TEST_LOG": str(log), "A2A_WORKER_LEASE_S": "90"}
    with deploy(cloud_tasks_emulator, log_dir, overrides, source=SOURCE) as deployed:
        yield deployed, log


@pytest.fixture
async def gcp(sdk_deployment: tuple[Deployment, Path]) -> AsyncIterator[GcpDeployment]:
    deployment, log = sdk_deployment
    async with httpx.AsyncClient(timeout=30) as client:
        yield GcpDeployment(deployment, log, client)


async def test_sample_executors_through_the_functions(gcp: GcpDeployment) -> None:
    await scenarios.echo_answers_with_a_message(gcp)
    await scenarios.a_raising_executor_fails_the_task(gcp)
    await scenarios.multi_turn_asks_then_answers(gcp)
    await scenarios.streamed_chunks_make_one_artifact(gcp)


async def test_cancel_from_the_http_function_stops_the_worker_and_is_pushed(
    gcp: GcpDeployment,
) -> None:
    receiver = await WebhookServer().start()
    try:
        config = {"pushNotificationConfig": {"url": receiver.url(), "token": "gcp-tok"}}
        task = await scenarios.send(gcp, "slow job", config=config)
        await scenarios.until(gcp, task["id"], scenarios.state_is("working"))
        response = await gcp.rpc("tasks/cancel", {"id": task["id"]})
        assert scenarios.result(response)["status"]["state"] == "canceled"
        await scenarios.wait_for_lines(
            gcp.log, [f"execute-cancelled {task['id']}", f"cancel {task['id']} slow working"]
        )
        (notification,) = await receiver.wait_for(1, timeout=60)
        assert json.loads(notification.body)["status"]["state"] == "canceled"
        assert notification.headers["x-a2a-notification-token"] == "gcp-tok"
    finally:
        await receiver.stop()
