"""Durable calls on the Google Cloud path: the orchestrator's HTTP and worker functions under
functions-framework on the Firestore, Pub/Sub and Cloud Tasks emulators, calling our agent on
uvicorn in the test process (held by a gate so that the orchestrator's turn suspends).

By callback: the remote's push notification reaches the HTTP function's callback route, which
records the outcome and queues the turn again on Pub/Sub. By poll (no public URL given, so no
callback is asked for): the durable-check job, delayed on Cloud Tasks, finds the task ended.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_serverless.store import open_store
from a2a_serverless.store.bookkeeping import durable_of
from tests.integration.test_durable_calls import Gate, Stack, settings, worker_agent
from tests.support.server import free_port

from .conftest import deploy
from .test_functions_e2e import message, rpc

pytestmark = pytest.mark.gcp

MAIN = Path(__file__).resolve().parent / "durable_main.py"
TIMEOUT_S = 90.0


async def status_text(client: httpx.AsyncClient, url: str, task_id: str) -> tuple[str, str]:
    task = await rpc(client, url, "tasks/get", {"id": task_id})
    status = task["status"]
    parts = (status.get("message") or {}).get("parts") or []
    return status["state"], "".join(p.get("text", "") for p in parts)


async def wait_until(check: Any, what: str, logs: Any) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not await check():
        assert time.monotonic() < deadline, f"not reached: {what}\n{logs()}"
        await asyncio.sleep(0.2)


@pytest.mark.parametrize("path", ["callback", "poll"])
async def test_the_functions_suspend_and_resume_a_call(
    path: str,
    pubsub_emulator: str,
    cloud_tasks_emulator: str,
    firestore_emulator: str,
    tmp_path: Path,
) -> None:
    stack = Stack(tmp_path)
    gate = Gate()
    remote_port = free_port()
    remote = await stack.serve(
        worker_agent(gate), settings(stack, "remote", remote_port), remote_port
    )
    http_port = free_port()
    overrides = {
        "A2A_REMOTE_AGENTS": json.dumps({"worker": remote.url}),
        "A2A_DURABLE_INLINE_WAIT_S": "0.2",
        # The callback path must not be rescued by a poll, nor the poll path wait long.
        "A2A_DURABLE_POLL_INITIAL_S": "600" if path == "callback" else "1",
        "A2A_DURABLE_POLL_MAX_S": "600" if path == "callback" else "1",
    }
    if path == "callback":
        overrides["A2A_PUBLIC_URL"] = f"http://127.0.0.1:{http_port}"
    try:
        with deploy(
            cloud_tasks_emulator, tmp_path, overrides, source=MAIN, http_port=http_port
        ) as deployment:

            def logs() -> str:
                return f"worker:\n{deployment.worker.tail()}\nhttp:\n{deployment.http.tail()}"

            async with httpx.AsyncClient(timeout=30) as client:
                url = deployment.http.url + "/"
                sent = await rpc(
                    client,
                    url,
                    "message/send",
                    {"message": message("hello gcp"), "configuration": {"blocking": False}},
                )
                task_id = sent["id"]

                async def suspended() -> bool:
                    state, text = await status_text(client, url, task_id)
                    return state == "working" and text.startswith("Waiting for ")

                await wait_until(suspended, "the turn suspended", logs)
                gate.event.set()

                async def completed() -> bool:
                    return (await status_text(client, url, task_id))[0] == "completed"

                await wait_until(completed, "the turn completed", logs)
                _, text = await status_text(client, url, task_id)
            assert text == "worker said: HELLO GCP"
            lines = deployment.runs_file.read_text().splitlines()
            assert lines == ["run", "run", "continued"], logs()
            store = open_store(deployment.env["A2A_STORE_URL"])
            try:
                record = await store.get_task(task_id)
            finally:
                await store.close()
            assert record is not None
            turn = durable_of(record.internal)
            assert turn is not None
            assert [op.resumed_by for op in turn.ops.values()] == [path], logs()
    finally:
        await stack.close()
