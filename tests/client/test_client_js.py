"""The client against an agent served by the official @a2a-js/sdk 1.x server core (A2A 1.0 over
JSON-RPC; tests/client/js_agent.mjs on node:http), over real HTTP; and `check` against it.

`scripts/interop-js.sh` installs the SDK into tests/interop/js/node_modules. Without node or the
SDK every test here fails (as tests/interop/test_js_sdk.py's do) and says to run it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from a2a_serverless import errors as e
from a2a_serverless import models as m
from a2a_serverless.client import A2AClient
from a2a_serverless.client.check import run_checks
from tests.support.server import LiveServer, free_port, start_server

pytestmark = pytest.mark.interop

HERE = Path(__file__).resolve().parent
SDK_PACKAGE = HERE.parent / "interop" / "js" / "node_modules" / "@a2a-js" / "sdk" / "package.json"
SETUP_HINT = "run scripts/interop-js.sh to install @a2a-js/sdk into tests/interop/js"


@pytest.fixture(scope="module")
def js_server() -> Iterator[LiveServer]:
    node = shutil.which("node")
    if node is None or not SDK_PACKAGE.exists():
        pytest.fail(f"node or @a2a-js/sdk is missing: {SETUP_HINT}")
    port = free_port()
    server = start_server([node, str(HERE / "js_agent.mjs"), str(port)], port, {}, what="js agent")
    yield server
    server.stop()


async def test_every_operation_the_js_server_offers(js_server: LiveServer) -> None:
    client = await A2AClient.connect(js_server.url)
    assert (client.interface.version, client.interface.binding) == ("1.0", "JSONRPC")
    task = await client.send("hello")
    assert isinstance(task, m.Task) and task.status.state is m.TaskState.COMPLETED
    texts = [p.text for a in task.artifacts or [] for p in a.parts if p.text is not None]
    assert texts == ["echo: hello"]
    got = await client.get_task(task.id)
    assert got.id == task.id and got.status.state is m.TaskState.COMPLETED

    events = [event async for event in client.stream("streamed")]
    assert isinstance(events[0], m.Task)
    last = events[-1]
    assert isinstance(last, m.TaskStatusUpdateEvent) and last.status.state.ends_stream
    assert last.status.state is m.TaskState.COMPLETED

    running = await client.send("slow 50", blocking=False)
    assert isinstance(running, m.Task)
    canceled = await client.cancel_task(running.id)
    assert canceled.status.state is m.TaskState.CANCELED

    with pytest.raises(e.TaskNotFoundError):
        await client.get_task("no-such-task")
    with pytest.raises(e.PushNotificationNotSupportedError):
        await client.list_push_configs(task.id)


async def test_check_against_the_js_server(js_server: LiveServer) -> None:
    results = await run_checks(js_server.url)
    found = {(r.check, r.interface): r.outcome for r in results}
    for check in ("answers", "send", "get", "stream", "errors"):
        assert found[(check, "1.0 JSONRPC")] == "pass", check
    assert found[("card-1.0", "")] == "pass"
    assert found[("card-0.3", "")] == "n/a"
