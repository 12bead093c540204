"""Durable calls of an agent mounted in a FastAPI app, on the dev stack over real HTTP: the
orchestrator under `/agent` of an app served by uvicorn, A2A_PUBLIC_URL naming the app's root,
calls a worker agent with push; the worker's notification reaches the callback route under the
prefix and resumes the turn (no poll: the first would come after two minutes). The same with
the orchestrator alone, and with an entry point's Runtime bound to the mount, as `dev` does."""

from __future__ import annotations

import logging

import httpx
import pytest
from fastapi import FastAPI

from a2a_serverless import Agent
from a2a_serverless.fastapi import mount_agent
from a2a_serverless.models import TaskState
from a2a_serverless.routepaths import JWKS_PATH
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


async def serve_mounted(stack: Stack, agent_: Agent, port: int, prefix: str) -> Served:
    """`agent_` alone in a FastAPI app, under `prefix`, on uvicorn; A2A_PUBLIC_URL the root."""
    api = FastAPI()
    mount = mount_agent(api, agent_, prefix=prefix, settings=settings(stack, prefix[1:], port))
    return await stack.serve_asgi(api, mount.app, port, prefix)


@needs_crypto
async def test_a_mounted_remotes_notification_is_verified_by_its_signature(
    stack: Stack, caplog: pytest.LogCaptureFixture
) -> None:
    """The worker mounted under /worker of another app: its notification is signed (dev keys),
    `iss` its URL with the prefix, and the callback verifies it against the JWKS it serves
    under the prefix (none is served at its origin): not on the token alone."""
    caplog.set_level(logging.INFO, logger="a2a_serverless.durable")
    gate, runs = Gate(), []
    orchestrator = Agent(name="Orchestrator", description="calls", executor=Orchestrator(runs))
    worker_port, orch_port = free_port(), free_port()
    worker = await serve_mounted(stack, worker_agent(gate), worker_port, "/worker")
    worker_root = f"http://127.0.0.1:{worker_port}"
    assert worker.url == f"{worker_root}/worker"
    orchestrator.remote_agents["worker"] = worker.url
    orch = await stack.serve(orchestrator, settings(stack, "orchestrator", orch_port), orch_port)

    # Its JWTs' issuer is its URL, and its keys are under it (not at the app's root).
    assert worker.app.runtime.notifier is not None
    assert worker.app.runtime.notifier.signer.issuer == worker.url
    async with httpx.AsyncClient() as http:
        assert (await http.get(f"{worker.url}{JWKS_PATH}")).json()["keys"]
        assert (await http.get(f"{worker_root}{JWKS_PATH}")).status_code == 404

    client, task = await send(orch.url, "sign here")
    await wait_suspended(client, task.id)
    gate.event.set()
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert done.status.message.parts[0].text == "worker said: SIGN HERE"  # type: ignore[union-attr]
    turn = durable_of((await orch.record(task.id)).internal)
    assert turn is not None
    (op,) = turn.ops.values()
    assert op.state == "done" and op.resumed_by == "callback"
    said = [r.getMessage() for r in caplog.records if r.name == "a2a_serverless.durable"]
    verified = [line for line in said if "verified by the remote's signature" in line]
    assert verified and all(f"{worker.url}{JWKS_PATH}" in line for line in verified), said
    assert not [line for line in said if "token alone" in line or "refused" in line], said
