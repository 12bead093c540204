"""Durable calls to the official a2a-sdk servers, over real HTTP.

- 0.3.26 (with push notifications): its push sender calls our callback endpoint (0.3's Task
  body, our token), or, with its push off, our polls find its task ended. It runs in-process on
  uvicorn, its executor held by a gate the test opens so that our turn suspends first.
- 1.3.0 (.venv-a2a-sdk1, in a subprocess: tests/client/sdk1_agent.py), spoken to in A2A 1.0:
  its 1.0 push notification reaches our callback. Its agent's `slow N` works N x 0.2 s, far
  past our 0.2 s inline window, so the turn suspends first.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from a2a_serverless import Agent
from a2a_serverless.models import TaskState
from a2a_serverless.store.bookkeeping import durable_of
from tests.integration.test_durable_calls import (
    Gate,
    Orchestrator,
    Stack,
    send,
    settings,
    texts,
    wait_state,
    wait_suspended,
)
from tests.support.server import REPO, free_port, start_server

pytest.importorskip("a2a.server.apps")


@pytest.fixture
async def stack(tmp_path: Path) -> AsyncIterator[Stack]:
    stack = Stack(tmp_path)
    try:
        yield stack
    finally:
        await stack.close()


async def serve_sdk(gate: Gate, *, push: bool) -> tuple[str, uvicorn.Server, Any]:
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.apps import A2AStarletteApplication
    from a2a.server.events import EventQueue
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.tasks import (
        BasePushNotificationSender,
        InMemoryPushNotificationConfigStore,
        InMemoryTaskStore,
        TaskUpdater,
    )
    from a2a.types import (
        AgentCapabilities,
        AgentCard,
        AgentSkill,
        Part,
        TextPart,
        UnsupportedOperationError,
    )
    from a2a.utils import new_task
    from a2a.utils.errors import ServerError

    class GatedUpper(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            assert context.message is not None
            task = context.current_task or new_task(context.message)
            await event_queue.enqueue_event(task)
            updater = TaskUpdater(event_queue, task.id, task.context_id)
            await updater.start_work()
            await gate.wait()
            text = context.get_user_input().upper()
            await updater.add_artifact([Part(root=TextPart(text=text))], name="answer")
            await updater.complete()

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            # As the SDK's samples refuse a cancel they do not offer (this one is never asked).
            raise ServerError(error=UnsupportedOperationError())

    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    card = AgentCard(
        name="SDK upper",
        description="Upper-cases, when let through.",
        url=url,
        version="1.0.0",
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        capabilities=AgentCapabilities(streaming=False, push_notifications=push),
        skills=[AgentSkill(id="upper", name="upper", description="upper", tags=[])],
    )
    http = httpx.AsyncClient()
    configs = InMemoryPushNotificationConfigStore()
    handler = DefaultRequestHandler(
        agent_executor=GatedUpper(),
        task_store=InMemoryTaskStore(),
        push_config_store=configs if push else None,
        push_sender=BasePushNotificationSender(http, configs) if push else None,
    )
    app = A2AStarletteApplication(agent_card=card, http_handler=handler).build()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    return url.rstrip("/"), server, (task, http)


@pytest.mark.parametrize("push", [True, False], ids=["callback", "poll"])
async def test_an_official_sdk_server_is_called_durably(stack: Stack, push: bool) -> None:
    gate, runs = Gate(), []
    url, server, (task_, http) = await serve_sdk(gate, push=push)
    try:
        orchestrator = Agent(
            name="Orchestrator",
            description="calls",
            executor=Orchestrator(runs),
            remote_agents={"worker": url},
        )
        port = free_port()
        polls = {} if push else {"durable_poll_initial_s": 0.2, "durable_poll_max_s": 0.5}
        orch = await stack.serve(orchestrator, settings(stack, "orchestrator", port, **polls), port)
        client, task = await send(orch.url, "hello sdk")
        await wait_suspended(client, task.id)
        gate.event.set()
        done = await wait_state(client, task.id, TaskState.COMPLETED)
        assert done.status.message is not None
        assert done.status.message.parts[0].text == "worker said: HELLO SDK"  # type: ignore[union-attr]
        assert len(runs) == 2 and texts(done).count("planning") == 1
        op = next(iter(durable_of((await orch.record(task.id)).internal).ops.values()))  # type: ignore[union-attr]
        assert op.resumed_by == ("callback" if push else "poll")
    finally:
        server.should_exit = True
        await asyncio.wait_for(task_, 10)
        await http.aclose()


SDK1_PYTHON = REPO / ".venv-a2a-sdk1" / "bin" / "python"
SDK1_AGENT = REPO / "tests" / "client" / "sdk1_agent.py"


async def test_an_official_sdk_1_x_server_is_called_durably_and_calls_back(stack: Stack) -> None:
    if not SDK1_PYTHON.exists():
        pytest.fail("no .venv-a2a-sdk1: run scripts/interop-venv.sh to create it")
    sdk_port = free_port()
    sdk = start_server(
        [str(SDK1_PYTHON), str(SDK1_AGENT), str(sdk_port)], sdk_port, {}, what="sdk1_agent.py"
    )
    try:
        runs: list[int] = []
        orchestrator = Agent(
            name="Orchestrator",
            description="calls",
            executor=Orchestrator(runs),
            remote_agents={"worker": sdk.url},
        )
        port = free_port()
        orch = await stack.serve(orchestrator, settings(stack, "orchestrator", port), port)
        client, task = await send(orch.url, "slow 10")
        await wait_suspended(client, task.id)
        done = await wait_state(client, task.id, TaskState.COMPLETED)
        assert done.status.message is not None
        assert done.status.message.parts[0].text == "worker said: echo: slow 10"  # type: ignore[union-attr]
        assert len(runs) == 2 and texts(done).count("planning") == 1
        op = next(iter(durable_of((await orch.record(task.id)).internal).ops.values()))  # type: ignore[union-attr]
        # The poll is two minutes off (settings): only the SDK's push brought the turn back.
        assert op.resumed_by == "callback"
    finally:
        sdk.stop()
