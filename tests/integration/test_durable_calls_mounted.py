"""Durable calls of an agent mounted in a FastAPI app, on the dev stack over real HTTP: the
orchestrator under `/agent` of an app served by uvicorn, A2A_PUBLIC_URL naming the app's root,
calls a worker agent with push; the worker's notification reaches the callback route under the
prefix and resumes the turn (no poll: the first would come after two minutes). The same with
the orchestrator alone, and with an entry point's Runtime bound to the mount, as `dev` does."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from a2a_serverless import Agent
from a2a_serverless.fastapi import mount_agent
from a2a_serverless.models import TaskState
from a2a_serverless.runtime import Runtime
from a2a_serverless.store.bookkeeping import durable_of
from tests.integration.test_durable_calls import (
    Gate,
    Orchestrator,
    Served,
    Stack,
    _all_tasks,
    needs_crypto,
    send,
    settings,
    stack,
    wait_state,
    wait_suspended,
    worker_agent,
)
from tests.support.server import free_port

__all__ = ["stack"]  # the fixture, used by name

PREFIX = "/agent"


async def serve_orchestrator(stack: Stack, orchestrator: Agent, port: int, how: str) -> Served:
    """The orchestrator on uvicorn: alone, or mounted under /agent of a FastAPI app with the
    Runtime the mount builds (`own`) or one an entry point builds and binds (`bound`)."""
    orch_settings = settings(stack, "orchestrator", port)
    if how == "alone":
        return await stack.serve(orchestrator, orch_settings, port)
    api = FastAPI()

    @api.get("/hello")
    def hello() -> dict[str, str]:
        return {"hello": "world"}

    mount = mount_agent(api, orchestrator, prefix=PREFIX, settings=orch_settings)
    if how == "bound":
        mount.bind(Runtime(orchestrator, orch_settings, **mount.runtime_options), owned=True)
    return await stack.serve_asgi(api, mount.app, port, PREFIX)


@needs_crypto
@pytest.mark.parametrize("how", ["own", "bound", "alone"])
async def test_the_callback_reaches_the_agent_where_it_is_mounted(stack: Stack, how: str) -> None:
    gate, runs = Gate(), []
    orchestrator = Agent(name="Orchestrator", description="calls", executor=Orchestrator(runs))
    worker_port, orch_port = free_port(), free_port()
    worker = await stack.serve(
        worker_agent(gate), settings(stack, "worker", worker_port), worker_port
    )
    orchestrator.remote_agents["worker"] = worker.url
    orch = await serve_orchestrator(stack, orchestrator, orch_port, how)
    root = f"http://127.0.0.1:{orch_port}"
    assert orch.app.runtime.settings.public_url == root  # the app's root, as the deploys set it

    client, task = await send(orch.url, "hello")
    await wait_suspended(client, task.id)
    # The push config our call set on the worker's task names the route under the prefix.
    (remote,) = (await worker.app.runtime.store.list_tasks(_all_tasks())).records
    (config,) = await worker.app.runtime.store.list_push_configs(remote.task_id)
    mounted_at = "" if how == "alone" else PREFIX
    assert config.config.url.startswith(f"{root}{mounted_at}/_a2a/callbacks/{task.id}/")

    gate.event.set()
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert done.status.message is not None
    assert done.status.message.parts[0].text == "worker said: HELLO"  # type: ignore[union-attr]
    turn = durable_of((await orch.record(task.id)).internal)
    assert turn is not None
    (op,) = turn.ops.values()
    assert op.state == "done" and op.resumed_by == "callback"
    assert len(runs) == 2
