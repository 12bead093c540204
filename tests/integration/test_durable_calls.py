"""Durable calls end to end on the dev stack: two of our agents on uvicorn over real HTTP, each
with its own SQLite store and queue, the orchestrator calling the worker with `ctx.call`.

The worker is held by a gate the test opens, so the orchestrator's call outlives its inline
window and its turn suspends; then the worker's push notification to our callback endpoint (or,
for a worker without push, a poll) resumes the turn, which is replayed from its start. Every
wait is on a condition (a task's state), bounded only so that a broken run cannot hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from a2a_serverless import Agent, Context, Settings, TaskUpdater, agent
from a2a_serverless.app import create_app
from a2a_serverless.asgi import A2AApplication
from a2a_serverless.client import A2AClient
from a2a_serverless.durable import (
    CallDeadlineExceeded,
    RemoteFailed,
    RemoteRejected,
    UnknownRemote,
)
from a2a_serverless.extras import crypto_available
from a2a_serverless.models import Message, Part, Task, TaskState
from a2a_serverless.store.bookkeeping import durable_of
from a2a_serverless.turn import Failed, InputRequired, Rejected
from tests.support.server import free_port

WAIT_S = 30.0


@dataclass
class Served:
    url: str
    app: A2AApplication
    server: uvicorn.Server
    task: asyncio.Task[None]

    async def record(self, task_id: str) -> Any:
        return await self.app.runtime.store.get_task(task_id)


@dataclass
class Stack:
    tmp: Path
    served: list[Served] = field(default_factory=list)

    async def serve(
        self, agent_: Agent, settings: Settings, port: int, *, wrap: Any = None
    ) -> Served:
        """`agent_` on uvicorn; `wrap` (an ASGI app taking ours) sees its requests first."""
        app = create_app(agent_, settings)
        return await self.serve_asgi(wrap(app) if wrap else app, app, port)

    async def serve_asgi(self, asgi: Any, app: A2AApplication, port: int, path: str = "") -> Served:
        """`asgi` on uvicorn, in which `app` serves an agent at `path` (a FastAPI app's mount)."""
        config = uvicorn.Config(
            asgi,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            lifespan="on",
        )
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve())
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        served = Served(f"http://127.0.0.1:{port}{path}", app, server, task)
        self.served.append(served)
        return served

    async def stop(self, served: Served) -> None:
        self.served.remove(served)
        served.server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(served.task, 10)
        await served.app.runtime.aclose()

    async def close(self) -> None:
        for served in reversed(list(self.served)):
            await self.stop(served)


@pytest.fixture
async def stack(tmp_path: Path) -> AsyncIterator[Stack]:
    stack = Stack(tmp_path)
    try:
        yield stack
    finally:
        await stack.close()


def settings(stack: Stack, name: str, port: int, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "store_url": f"sqlite:///{stack.tmp / name}.db",
        "dev_mode": True,
        "public_url": f"http://127.0.0.1:{port}",
        "durable_inline_wait_s": 0.2,
        # Long: a test of the callback path is not rescued by a poll.
        "durable_poll_initial_s": 120.0,
        "poll_interval_s": 0.05,
    }
    values.update(overrides)
    return Settings(**values)


class Gate:
    """What the worker agent waits on; the test opens it."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.arrived = asyncio.Event()

    async def wait(self) -> None:
        self.arrived.set()
        await self.event.wait()


def worker_agent(gate: Gate, *, behaviour: Callable[[str], Any] | None = None) -> Agent:
    @agent(name="Worker", description="Upper-cases, when let through.")
    async def work(text: str) -> Any:
        await gate.wait()
        if behaviour is not None:
            return behaviour(text)
        return text.upper()

    return work


async def until(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Wait for a condition read over HTTP from another server (no event to wait on there)."""
    try:
        async with asyncio.timeout(WAIT_S):
            while not await check():  # noqa: ASYNC110
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"not reached within {WAIT_S} s: {what}") from None


async def task_of(client: A2AClient, task_id: str) -> Task:
    return await client.get_task(task_id)


async def send(url: str, text: str) -> tuple[A2AClient, Task]:
    client = await A2AClient.connect(url, allow_private_urls=True)
    reply = await client.send(text, blocking=False)
    assert isinstance(reply, Task)
    return client, reply


async def wait_state(client: A2AClient, task_id: str, *states: TaskState) -> Task:
    seen: Task | None = None

    async def ended() -> bool:
        nonlocal seen
        seen = await client.get_task(task_id)
        return seen.status.state in states

    await until(ended, f"task {task_id} in {states}")
    assert seen is not None
    return seen


async def wait_suspended(client: A2AClient, task_id: str, containing: str = "") -> Task:
    seen: Task | None = None

    async def waiting() -> bool:
        nonlocal seen
        seen = await client.get_task(task_id)
        message = seen.status.message
        text = "".join(p.text for p in message.parts if p.text is not None) if message else ""
        waiting = seen.status.state == TaskState.WORKING and text.startswith("Waiting for ")
        return waiting and containing in text

    await until(waiting, "suspended")
    assert seen is not None
    return seen


def texts(task: Task) -> list[str]:
    return [
        p.text
        for m in task.history or []
        if m.role == "agent"
        for p in m.parts
        if p.text is not None
    ]


def artifact_text(task: Task) -> str:
    return "".join(p.text for a in task.artifacts or [] for p in a.parts if p.text is not None)


class Orchestrator:
    """Reports progress, calls the worker, completes with its answer."""

    def __init__(self, runs: list[int]) -> None:
        self.runs = runs

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        self.runs.append(1)
        await updater.start_work("planning")
        result = await context.call("worker", context.text)
        await updater.complete(artifacts=[], message=f"worker said: {result.text}")


async def two_agents(
    stack: Stack,
    orchestrator: Agent,
    gate: Gate,
    *,
    worker: Agent | None = None,
    worker_settings: dict[str, Any] | None = None,
    orchestrator_settings: dict[str, Any] | None = None,
    worker_push: bool = True,
    worker_wrap: Any = None,
) -> tuple[Served, Served]:
    worker_port, orch_port = free_port(), free_port()
    worker_served = await stack.serve(
        worker or worker_agent(gate),
        settings(
            stack,
            "worker",
            worker_port,
            push_notifications=worker_push,
            **(worker_settings or {}),
        ),
        worker_port,
        wrap=worker_wrap,
    )
    orchestrator.remote_agents["worker"] = worker_served.url
    orch = await stack.serve(
        orchestrator,
        settings(stack, "orchestrator", orch_port, **(orchestrator_settings or {})),
        orch_port,
    )
    return worker_served, orch


needs_crypto = pytest.mark.skipif(
    not crypto_available(), reason="push notifications in dev mode need the crypto extra"
)


@needs_crypto
async def test_a_slow_call_suspends_and_the_callback_resumes_the_turn(stack: Stack) -> None:
    gate, runs = Gate(), []
    orchestrator = Agent(name="Orchestrator", description="calls", executor=Orchestrator(runs))
    worker, orch = await two_agents(stack, orchestrator, gate)

    client, task = await send(orch.url, "hello")
    await wait_suspended(client, task.id)
    # Suspended: no worker of ours holds the turn.
    record = await orch.record(task.id)
    assert record.claim is None
    turn = durable_of(record.internal)
    assert turn is not None and turn.suspended and turn.writes == 1
    (op,) = turn.ops.values()
    assert op.kind == "call" and op.state == "pending" and op.remote == worker.url

    gate.event.set()
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert done.status.message is not None
    assert done.status.message.parts[0].text == "worker said: HELLO"  # type: ignore[union-attr]
    # The turn ran twice (the first run suspended), its "planning" write was made once.
    assert len(runs) == 2
    assert texts(done).count("planning") == 1
    op = next(iter(durable_of((await orch.record(task.id)).internal).ops.values()))  # type: ignore[union-attr]
    assert op.state == "done" and op.resumed_by == "callback"
    # The worker made one task for the call.
    listed = await worker.app.runtime.store.list_tasks(_all_tasks())
    assert len(listed.records) == 1

    # The operator sees the call, never its callback's secrets.
    import json

    from tests.support.operator_cli import cli

    store = ["--store", f"sqlite:///{stack.tmp / 'orchestrator'}.db"]
    status, out, _ = await cli("tasks", "show", task.id, *store, "--json", env={})
    assert status == 0
    (shown,) = json.loads(out)["durable"]["operations"]
    assert shown["remoteTaskId"] == op.remote_task_id and shown["resumedBy"] == "callback"
    assert op.callback_token not in out and op.callback_id not in out  # type: ignore[operator]
    status, out, _ = await cli("tasks", "show", task.id, *store, env={})
    assert "Durable operations (1)" in out and "callback" in out
    # And the inspector (dev mode) shows the task's calls the same way.
    import httpx

    async with httpx.AsyncClient() as http:
        page = await http.get(f"{orch.url}/_inspector/api/tasks/{task.id}/calls")
    assert page.status_code == 200
    (call,) = page.json()["durable"]["operations"]
    assert call["remote"] == worker.url and call["resumedBy"] == "callback"
    assert op.callback_token not in page.text  # type: ignore[operator]


def _all_tasks() -> Any:
    from a2a_serverless.store.base import TaskQuery

    return TaskQuery(owner="anonymous")


async def test_without_push_a_poll_resumes_the_turn(stack: Stack) -> None:
    gate, runs = Gate(), []
    orchestrator = Agent(name="Orchestrator", description="calls", executor=Orchestrator(runs))
    _, orch = await two_agents(
        stack,
        orchestrator,
        gate,
        worker_push=False,
        orchestrator_settings={"durable_poll_initial_s": 0.1, "durable_poll_max_s": 0.2},
    )
    client, task = await send(orch.url, "poll me")
    await wait_suspended(client, task.id)
    gate.event.set()
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert done.status.message.parts[0].text == "worker said: POLL ME"  # type: ignore[union-attr]
    op = next(iter(durable_of((await orch.record(task.id)).internal).ops.values()))  # type: ignore[union-attr]
    assert op.resumed_by == "poll"
    assert texts(done).count("planning") == 1


@needs_crypto
async def test_a_replay_that_makes_another_call_fails_the_turn(stack: Stack) -> None:
    gate = Gate()
    counter = itertools.count()

    @agent(name="Fickle", description="asks something else each run")
    async def fickle(ctx: Context) -> str:
        result = await ctx.call("worker", f"question {next(counter)}")
        return result.text

    _, orch = await two_agents(stack, fickle, gate)
    client, task = await send(orch.url, "go")
    await wait_suspended(client, task.id)
    gate.event.set()
    failed = await wait_state(client, task.id, TaskState.FAILED)
    assert failed.status.message is not None
    text = failed.status.message.parts[0].text  # type: ignore[union-attr]
    assert text.startswith("Non-deterministic replay: operation 0")


@needs_crypto
async def test_canceling_our_task_cancels_the_remote_task(stack: Stack) -> None:
    gate, runs = Gate(), []
    orchestrator = Agent(name="Orchestrator", description="calls", executor=Orchestrator(runs))
    worker, orch = await two_agents(stack, orchestrator, gate)
    client, task = await send(orch.url, "never mind")
    await wait_suspended(client, task.id)
    op = next(iter(durable_of((await orch.record(task.id)).internal).ops.values()))  # type: ignore[union-attr]
    assert op.remote_task_id is not None

    await client.cancel_task(task.id)
    worker_client = await A2AClient.connect(worker.url, allow_private_urls=True)
    await wait_state(worker_client, op.remote_task_id, TaskState.CANCELED)

    async def marked() -> bool:
        kept = durable_of((await orch.record(task.id)).internal)
        return kept is not None and all(o.state == "canceled" for o in kept.ops.values())

    await until(marked, "the call marked canceled")


async def test_a_cancel_during_an_inline_call_stops_the_agent_and_cancels_the_remote_task(
    stack: Stack,
) -> None:
    gate, cleaned_up = Gate(), asyncio.Event()

    @agent(name="Patient", description="waits for the worker inline")
    async def patient(ctx: Context) -> str:
        try:
            result = await ctx.call("worker", "slowly")
        finally:
            cleaned_up.set()
        return result.text

    # A long inline window: the turn is running (awaiting the call), not suspended, when the
    # cancel comes.
    worker, orch = await two_agents(
        stack, patient, gate, orchestrator_settings={"durable_inline_wait_s": 120.0}
    )
    client, task = await send(orch.url, "go")

    async def called() -> bool:
        kept = durable_of((await orch.record(task.id)).internal)
        return kept is not None and any(o.remote_task_id for o in kept.ops.values())

    await until(called, "the remote task recorded")
    await asyncio.wait_for(gate.arrived.wait(), WAIT_S)
    op = next(iter(durable_of((await orch.record(task.id)).internal).ops.values()))  # type: ignore[union-attr]
    assert op.remote_task_id is not None

    await client.cancel_task(task.id)
    # Stopped at its await, not when the call's inline window ends.
    await asyncio.wait_for(cleaned_up.wait(), WAIT_S)
    worker_client = await A2AClient.connect(worker.url, allow_private_urls=True)
    await wait_state(worker_client, op.remote_task_id, TaskState.CANCELED)
    assert (await client.get_task(task.id)).status.state is TaskState.CANCELED


async def test_past_its_deadline_a_call_cancels_the_remote_task_and_raises(stack: Stack) -> None:
    gate = Gate()
    seen: list[str] = []

    @agent(name="Impatient", description="gives up")
    async def impatient(ctx: Context) -> str:
        try:
            await ctx.call("worker", "take your time", deadline_s=0.6)
        except CallDeadlineExceeded as exc:
            seen.append(exc.task_id or "")
            return "gave up"
        return "answered"

    worker, orch = await two_agents(stack, impatient, gate, worker_push=False)
    client, task = await send(orch.url, "go")
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert artifact_text(done) == "gave up"
    worker_client = await A2AClient.connect(worker.url, allow_private_urls=True)
    await wait_state(worker_client, seen[-1], TaskState.CANCELED)


async def test_input_required_is_answered_and_failures_raise(stack: Stack) -> None:
    gate = Gate()
    gate.event.set()  # the worker answers at once: everything happens inline

    def behaviour(text: str) -> Any:
        if text == "ask":
            raise InputRequired("which one?")
        if text == "fail":
            raise Failed("cannot do that")
        if text == "refuse":
            raise Rejected("not my job")
        return f"done: {text}"

    @agent(name="Asker", description="answers its remote's question")
    async def asker(ctx: Context) -> str:
        first = await ctx.call("worker", "ask")
        assert first.input_required and first.text == "which one?"
        second = await ctx.call("worker", "the blue one", task_id=first.task_id)
        outcomes = [second.text]
        try:
            await ctx.call("worker", "fail")
        except RemoteFailed as failed:
            outcomes.append(failed.result.text)
        try:
            await ctx.call("worker", "refuse")
        except RemoteRejected as rejected:
            outcomes.append(rejected.result.text)
        try:
            await ctx.call("nobody", "hello?")
        except UnknownRemote:
            outcomes.append("unknown remote")
        return " / ".join(outcomes)

    _, orch = await two_agents(stack, asker, gate, worker=worker_agent(gate, behaviour=behaviour))
    client, task = await send(orch.url, "go")
    done = await wait_state(client, task.id, TaskState.COMPLETED, TaskState.FAILED)
    assert artifact_text(done) == (
        "done: the blue one / cannot do that / not my job / unknown remote"
    )


async def test_a_remote_that_answers_directly_gives_its_message(stack: Stack) -> None:
    gate = Gate()

    def at_once(text: str) -> str:
        return f"at once: {text}"

    @agent(name="Quick", description="answers at once", direct=at_once)
    async def quick(text: str) -> str:
        return "never"

    @agent(name="Caller", description="calls a quick agent")
    async def caller(ctx: Context) -> str:
        result = await ctx.call("worker", "hi")
        assert result.direct and result.message is not None
        return result.text

    _, orch = await two_agents(stack, caller, gate, worker=quick)
    client, task = await send(orch.url, "go")
    done = await wait_state(client, task.id, TaskState.COMPLETED, TaskState.FAILED)
    assert artifact_text(done) == "at once: hi"


@needs_crypto
async def test_calls_in_parallel_sleep_and_step_replay(stack: Stack) -> None:
    gate = Gate()
    drawn: list[int] = []
    counter = itertools.count(100)

    @agent(name="Fan", description="asks three at once")
    async def fan(ctx: Context) -> str:
        number = await ctx.step(lambda: next(counter), name="draw")
        drawn.append(number)
        results = await asyncio.gather(
            *(ctx.call("worker", f"part {i} of {number}") for i in range(3))
        )
        await ctx.sleep(0.5)
        return " | ".join(r.text for r in results)

    _, orch = await two_agents(
        stack,
        fan,
        gate,
        orchestrator_settings={"durable_poll_initial_s": 0.1, "durable_poll_max_s": 0.2},
    )
    client, task = await send(orch.url, "go")
    await wait_suspended(client, task.id)
    gate.event.set()
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert artifact_text(done) == "PART 0 OF 100 | PART 1 OF 100 | PART 2 OF 100"
    # Every run saw the value the step recorded on the first.
    assert len(drawn) >= 2 and set(drawn) == {100}


@needs_crypto
async def test_a_sleep_then_a_call_resume_once_each(stack: Stack) -> None:
    gate, runs = Gate(), []

    @agent(name="Patient", description="sleeps, then asks")
    async def patient(ctx: Context) -> str:
        runs.append(1)
        await ctx.sleep(1.0)
        result = await ctx.call("worker", "after the nap")
        return result.text

    _, orch = await two_agents(stack, patient, gate)
    client, task = await send(orch.url, "go")
    await wait_suspended(client, task.id, "a timer")
    await wait_suspended(client, task.id, "(task ")
    gate.event.set()
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert artifact_text(done) == "AFTER THE NAP"
    # Suspended for the sleep, then for the call: three runs, no more (a slept sleep does not
    # wake the turn again).
    assert len(runs) == 3


async def post(url: str, body: bytes, headers: dict[str, str] | None = None) -> Any:
    import httpx

    async with httpx.AsyncClient() as http:
        return await http.post(url, content=body, headers=headers or {})


@needs_crypto
async def test_the_callback_acts_only_on_its_own_call_and_reveals_nothing(stack: Stack) -> None:
    import json

    from a2a_serverless.routepaths import CALLBACK_PREFIX

    gate, runs = Gate(), []
    orchestrator = Agent(name="Orchestrator", description="calls", executor=Orchestrator(runs))
    _, orch = await two_agents(stack, orchestrator, gate)
    client, task = await send(orch.url, "hello")
    await wait_suspended(client, task.id)
    op = next(iter(durable_of((await orch.record(task.id)).internal).ops.values()))  # type: ignore[union-attr]
    assert op.callback_id and op.callback_token and op.remote_task_id
    url = f"{orch.url}{CALLBACK_PREFIX}{task.id}/{op.callback_id}"
    body = json.dumps({"task": {"id": op.remote_task_id}}).encode()
    token = {"X-A2A-Notification-Token": op.callback_token}

    async def still_pending() -> bool:
        kept = durable_of((await orch.record(task.id)).internal)
        assert kept is not None
        return next(iter(kept.ops.values())).state == "pending"

    answers = [
        await post(url, body),  # no token
        await post(url, body, {"X-A2A-Notification-Token": "guess"}),
        await post(url, json.dumps({"task": {"id": "another"}}).encode(), token),
        await post(f"{orch.url}{CALLBACK_PREFIX}{task.id}/unknown", body, token),
        await post(f"{orch.url}{CALLBACK_PREFIX}no-such-task/{op.callback_id}", body, token),
        # Genuine, but the remote task has not ended: the remote is asked, not believed.
        await post(
            url,
            json.dumps(
                {"task": {"id": op.remote_task_id, "status": {"state": "TASK_STATE_COMPLETED"}}}
            ).encode(),
            token,
        ),
    ]
    assert {(a.status_code, a.content) for a in answers} == {(202, b"")}
    assert await still_pending()
    too_big = await post(url, b"x" * (256 * 1024 + 1), token)
    assert too_big.status_code == 413
    import httpx

    async with httpx.AsyncClient() as http:
        assert (await http.get(url)).status_code == 405

    gate.event.set()
    await wait_state(client, task.id, TaskState.COMPLETED)
    assert len(runs) == 2
    # Replayed or late: answered the same, nothing happens.
    late = await post(url, body, token)
    assert (late.status_code, late.content) == (202, b"")
    assert len(runs) == 2


async def test_callbacks_are_rate_limited_before_the_store_is_read(stack: Stack) -> None:
    from a2a_serverless.routepaths import CALLBACK_PREFIX

    orchestrator = Agent(name="Orchestrator", description="calls", executor=Orchestrator([]))
    port = free_port()
    # 5 per second in all, so 1 per second per task: a burst at one task is cut at once.
    orch = await stack.serve(
        orchestrator, settings(stack, "orchestrator", port, durable_callbacks_per_s=5), port
    )
    url = f"{orch.url}{CALLBACK_PREFIX}some-task/some-call"
    answers = [await post(url, b"{}") for _ in range(4)]
    assert answers[0].status_code == 202
    limited = [a for a in answers if a.status_code == 429]
    assert limited and all(a.headers["retry-after"] == "1" for a in limited)
    assert {a.status_code for a in answers} <= {202, 429}
    # Other tasks share the instance's 5 per second: flooding many paths is cut too.
    spread = [await post(f"{orch.url}{CALLBACK_PREFIX}t{i}/c", b"{}") for i in range(12)]
    assert any(a.status_code == 429 for a in spread)


@needs_crypto
async def test_a_suspended_turn_survives_its_process_and_resumes_after_a_restart(
    stack: Stack,
) -> None:
    gate, runs = Gate(), []
    orchestrator = Agent(name="Orchestrator", description="calls", executor=Orchestrator(runs))
    durable = {"durable_poll_initial_s": 0.2, "durable_poll_max_s": 0.5}
    worker, orch = await two_agents(stack, orchestrator, gate, orchestrator_settings=durable)
    client, task = await send(orch.url, "still there?")
    await wait_suspended(client, task.id)

    # The orchestrator's process goes away while it waits: nothing of the turn is in memory.
    port = int(orch.url.rsplit(":", 1)[1])
    await stack.stop(orch)
    gate.event.set()
    worker_client = await A2AClient.connect(worker.url, allow_private_urls=True)
    op = next(iter(durable_of((await _read(stack, task.id)).internal).ops.values()))  # type: ignore[union-attr]
    await wait_state(worker_client, op.remote_task_id or "", TaskState.COMPLETED)

    # A new process on the same store file takes over the queued check and resumes the turn.
    await stack.serve(orchestrator, settings(stack, "orchestrator", port, **durable), port)
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert done.status.message.parts[0].text == "worker said: STILL THERE?"  # type: ignore[union-attr]
    assert len(runs) == 2
    assert texts(done).count("planning") == 1


async def _read(stack: Stack, task_id: str) -> Any:
    from a2a_serverless.store import open_store

    store = open_store(f"sqlite:///{stack.tmp / 'orchestrator'}.db")
    try:
        return await store.get_task(task_id)
    finally:
        await store.close()


@needs_crypto
async def test_a_signed_callback_must_verify_against_the_remotes_keys(stack: Stack) -> None:
    import json

    from a2a_serverless.routepaths import CALLBACK_PREFIX

    gate, runs = Gate(), []
    orchestrator = Agent(name="Orchestrator", description="calls", executor=Orchestrator(runs))
    # The worker's card offers push; it is turned off after the call is sent, so that only the
    # test's callbacks arrive (and no poll comes within the test).
    worker, orch = await two_agents(stack, orchestrator, gate)
    client, task = await send(orch.url, "sign here")
    await wait_suspended(client, task.id)
    worker.app.runtime.journal.commit_hooks.clear()  # the worker sends no notification now
    op = next(iter(durable_of((await orch.record(task.id)).internal).ops.values()))  # type: ignore[union-attr]
    gate.event.set()
    worker_client = await A2AClient.connect(worker.url, allow_private_urls=True)
    await wait_state(worker_client, op.remote_task_id or "", TaskState.COMPLETED)

    url = f"{orch.url}{CALLBACK_PREFIX}{task.id}/{op.callback_id}"
    body = json.dumps({"task": {"id": op.remote_task_id}}).encode()
    token = {"X-A2A-Notification-Token": op.callback_token or ""}
    forged = {**token, "X-A2A-Notification-JWT": "eyJhbGciOiJFUzI1NiIsImtpZCI6IngifQ.e30.c2ln"}
    assert (await post(url, body, forged)).status_code == 202
    kept = durable_of((await orch.record(task.id)).internal)
    assert kept is not None and next(iter(kept.ops.values())).state == "pending"
    assert len(runs) == 1

    # Unsigned, with the call's token: believed as far as a doorbell is (the remote is read).
    assert (await post(url, body, token)).status_code == 202
    await wait_state(client, task.id, TaskState.COMPLETED)
    assert len(runs) == 2


@needs_crypto
async def test_the_example_orchestrator_combines_two_agents_answers(stack: Stack) -> None:
    from examples.orchestrator import orchestrator

    gate = Gate()

    @agent(name="Planner", description="plans")
    async def planner(text: str) -> str:
        await gate.wait()
        return f"plan for {text}"

    @agent(name="Critic", description="asks back")
    async def critic(text: str) -> str:
        raise InputRequired("for how many days?")

    ports = [free_port() for _ in range(3)]
    planner_served = await stack.serve(planner, settings(stack, "planner", ports[0]), ports[0])
    critic_served = await stack.serve(critic, settings(stack, "critic", ports[1]), ports[1])
    remotes = json.dumps({"planner": planner_served.url, "second_opinion": critic_served.url})
    orch = await stack.serve(
        orchestrator, settings(stack, "orch", ports[2], remote_agents=remotes), ports[2]
    )
    client, task = await send(orch.url, "Lisbon")
    await wait_suspended(client, task.id)
    gate.event.set()
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert artifact_text(done) == (
        "## Planner\n\nplan for Lisbon\n\n## Second opinion\n\nasks: for how many days?"
    )
    # Our task is over: nobody will answer the critic's question, so its task is canceled.
    (asked,) = (await critic_served.app.runtime.store.list_tasks(_all_tasks())).records
    critic_client = await A2AClient.connect(critic_served.url, allow_private_urls=True)
    await wait_state(critic_client, asked.task_id, TaskState.CANCELED)


@needs_crypto
async def test_kill_9_of_the_orchestrator_while_it_waits_and_it_resumes_on_restart(
    stack: Stack,
) -> None:
    import signal

    from tests.support.server import start_live_server

    gate = Gate()
    port = free_port()
    remote = await stack.serve(worker_agent(gate), settings(stack, "remote", port), port)
    env = {
        "A2A_STORE_URL": f"sqlite:///{stack.tmp / 'orchestrator.db'}",
        "A2A_REMOTE_AGENTS": json.dumps({"planner": remote.url, "second_opinion": remote.url}),
        "A2A_DURABLE_INLINE_WAIT_S": "0.2",
        "A2A_DURABLE_POLL_INITIAL_S": "0.3",
        "A2A_DURABLE_POLL_MAX_S": "0.5",
    }
    first = await asyncio.to_thread(
        start_live_server, "examples.orchestrator:orchestrator", dict(env)
    )
    try:
        client, task = await send(first.url, "lisbon")
        await wait_suspended(client, task.id)
    finally:
        first.process.send_signal(signal.SIGKILL)
        await asyncio.to_thread(first.process.wait)
    gate.event.set()
    second = await asyncio.to_thread(
        start_live_server, "examples.orchestrator:orchestrator", dict(env)
    )
    try:
        client = await A2AClient.connect(second.url, allow_private_urls=True)
        done = await wait_state(client, task.id, TaskState.COMPLETED)
    finally:
        second.stop()
    assert artifact_text(done) == "## Planner\n\nLISBON\n\n## Second opinion\n\nLISBON"


@needs_crypto
async def test_one_trace_spans_both_agents_across_the_suspension(stack: Stack) -> None:
    """The client's traceparent reaches the orchestrator; the calls its turn makes to the worker
    (the send, and the read after resuming) carry the same trace."""
    import httpx

    gate, runs = Gate(), []
    seen: list[str] = []

    def capturing(inner: Any) -> Any:
        async def app(scope: Any, receive: Any, send_: Any) -> None:
            if scope["type"] == "http" and scope["method"] == "POST":
                seen.append(dict(scope["headers"]).get(b"traceparent", b"").decode())
            await inner(scope, receive, send_)

        return app

    worker_port, orch_port = free_port(), free_port()
    worker = await stack.serve(
        worker_agent(gate), settings(stack, "worker", worker_port), worker_port, wrap=capturing
    )
    orchestrator = Agent(
        name="Orchestrator",
        description="calls",
        executor=Orchestrator(runs),
        remote_agents={"worker": worker.url},
    )
    orch = await stack.serve(orchestrator, settings(stack, "orchestrator", orch_port), orch_port)
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": {
                "kind": "message",
                "messageId": "m-trace",
                "role": "user",
                "parts": [{"kind": "text", "text": "trace me"}],
            },
            "configuration": {"blocking": False},
        },
    }
    async with httpx.AsyncClient() as http:
        reply = await http.post(
            orch.url + "/",
            json=body,
            headers={"traceparent": f"00-{trace_id}-00f067aa0ba902b7-01"},
        )
    task_id = reply.json()["result"]["id"]
    client = await A2AClient.connect(orch.url, allow_private_urls=True)
    await wait_suspended(client, task_id)
    gate.event.set()
    await wait_state(client, task_id, TaskState.COMPLETED)
    calls = [t for t in seen if t]
    assert calls, seen
    assert all(t.split("-")[1] == trace_id for t in calls), calls


async def test_a_result_over_the_limit_fails_the_call_naming_the_limit(stack: Stack) -> None:
    from a2a_serverless.durable import CallError

    gate = Gate()
    gate.event.set()

    @agent(name="Greedy", description="asks for too much")
    async def greedy(ctx: Context) -> str:
        try:
            await ctx.call("worker", "x" * 2000)
        except CallError as exc:
            return str(exc)
        return "fitted"

    _, orch = await two_agents(
        stack, greedy, gate, orchestrator_settings={"durable_max_result_bytes": 1000}
    )
    client, task = await send(orch.url, "go")
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert "A2A_DURABLE_MAX_RESULT_BYTES (1000)" in artifact_text(done)


async def test_past_the_turns_deadline_the_task_fails_and_its_remote_task_is_canceled(
    stack: Stack,
) -> None:
    gate, runs = Gate(), []
    orchestrator = Agent(name="Orchestrator", description="calls", executor=Orchestrator(runs))
    worker, orch = await two_agents(
        stack,
        orchestrator,
        gate,
        worker_push=False,
        orchestrator_settings={"durable_turn_deadline_s": 0.8},
    )
    client, task = await send(orch.url, "too slow")
    failed = await wait_state(client, task.id, TaskState.FAILED)
    assert failed.status.message is not None
    reason = failed.status.message.parts[0].text  # type: ignore[union-attr]
    assert "deadline of 0.8 s (A2A_DURABLE_TURN_DEADLINE_S)" in reason
    op = next(iter(durable_of((await orch.record(task.id)).internal).ops.values()))  # type: ignore[union-attr]
    worker_client = await A2AClient.connect(worker.url, allow_private_urls=True)
    await wait_state(worker_client, op.remote_task_id or "", TaskState.CANCELED)
    assert len(runs) == 1


@needs_crypto
async def test_a_remote_task_canceled_by_someone_else_raises_remote_canceled(
    stack: Stack,
) -> None:
    from a2a_serverless.durable import RemoteCanceled

    gate = Gate()

    @agent(name="Stoic", description="takes a cancel calmly")
    async def stoic(ctx: Context) -> str:
        try:
            await ctx.call("worker", "work on it")
        except RemoteCanceled as canceled:
            return f"canceled: {canceled.result.state.value}"
        return "answered"

    worker, orch = await two_agents(stack, stoic, gate)
    client, task = await send(orch.url, "go")
    await wait_suspended(client, task.id)
    op = next(iter(durable_of((await orch.record(task.id)).internal).ops.values()))  # type: ignore[union-attr]
    worker_client = await A2AClient.connect(worker.url, allow_private_urls=True)
    await worker_client.cancel_task(op.remote_task_id or "")
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert artifact_text(done) == "canceled: canceled"


# --- a turn's end cancels the remote tasks it leaves behind ------------------------------------


def picky_worker(gate: Gate) -> Agent:
    """Asks which day for a booking, takes the answer, fails at once, or works until let
    through."""

    @agent(name="Worker", description="books, fails or works slowly")
    async def work(text: str) -> str:
        if text == "book a table":
            raise InputRequired("which day?")
        if text == "fail":
            raise Failed("cannot do that")
        if text == "slow":
            await gate.wait()
            return "SLOW"
        return f"booked for {text}"

    return work


async def calls_sent(served: dict[str, Served], task_id: str, count: int) -> None:
    """Until `count` calls of the task's turn have their remote task recorded (an agent that
    leaves a call unawaited waits so, for the call to be known when its turn ends)."""

    async def sent() -> bool:
        turn = durable_of((await served["orch"].record(task_id)).internal)
        return turn is not None and sum(1 for o in turn.ops.values() if o.remote_task_id) >= count

    await until(sent, f"{count} calls sent")


async def op_at(orch: Served, task_id: str, position: int, state: str) -> Any:
    """The call at `position` of the task's turn, once it is in `state`."""

    async def reached() -> bool:
        turn = durable_of((await orch.record(task_id)).internal)
        op = turn.op(position) if turn is not None else None
        return op is not None and op.state == state

    await until(reached, f"operation {position} {state}")
    turn = durable_of((await orch.record(task_id)).internal)
    assert turn is not None
    return turn.op(position)


async def call_canceled(worker: Served, orch: Served, task_id: str, position: int) -> None:
    """Until the call at `position` is recorded canceled and its remote task is canceled."""
    op = await op_at(orch, task_id, position, "canceled")
    worker_client = await A2AClient.connect(worker.url, allow_private_urls=True)
    await wait_state(worker_client, op.remote_task_id, TaskState.CANCELED)


@needs_crypto
async def test_a_turn_ending_input_required_cancels_its_pending_call_not_the_question_passed_up(
    stack: Stack,
) -> None:
    gate = Gate()
    served: dict[str, Served] = {}
    background: list[asyncio.Future[Any]] = []

    @agent(name="Concierge", description="books, asking its caller what the booking asks")
    async def concierge(ctx: Context) -> str:
        asked = [t for t in texts(ctx.task) if t.startswith("booking asks: ")]
        if asked:
            # The caller answered the question passed up: answer the remote task with it.
            remote_task = asked[-1].rsplit(" ", 1)[-1]
            answered = await ctx.call("worker", ctx.text, task_id=remote_task)
            return answered.text
        background.append(asyncio.ensure_future(ctx.call("worker", "slow")))
        await calls_sent(served, ctx.task_id, 1)
        result = await ctx.call("worker", "book a table")
        assert result.input_required
        raise InputRequired(f"booking asks: {result.text} task {result.task_id}")

    worker, orch = await two_agents(stack, concierge, gate, worker=picky_worker(gate))
    served["orch"] = orch
    client, task = await send(orch.url, "dinner")
    asking = await wait_state(client, task.id, TaskState.INPUT_REQUIRED)
    assert asking.status.message is not None
    assert asking.status.message.parts[0].text.startswith("booking asks: which day?")  # type: ignore[union-attr]

    # The call the turn still waited on: its remote task canceled, the call recorded so.
    await call_canceled(worker, orch, task.id, 0)
    worker_client = await A2AClient.connect(worker.url, allow_private_urls=True)
    # The remote task that asked is left for the next turn to answer.
    booking = await op_at(orch, task.id, 1, "done")
    still = await worker_client.get_task(booking.remote_task_id)
    assert still.status.state == TaskState.INPUT_REQUIRED

    reply = await client.send(
        Message(
            message_id="answer-1",
            role="user",
            parts=[Part(text="tuesday")],
            task_id=task.id,
            context_id=task.context_id,
        ),
        blocking=False,
    )
    assert isinstance(reply, Task)
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert artifact_text(done) == "booked for tuesday"
    finished = await worker_client.get_task(booking.remote_task_id)
    assert finished.status.state == TaskState.COMPLETED
    gate.event.set()


@needs_crypto
async def test_a_turn_completing_with_an_unawaited_call_cancels_its_remote_task(
    stack: Stack,
) -> None:
    gate = Gate()
    served: dict[str, Served] = {}
    background: list[asyncio.Future[Any]] = []

    @agent(name="Careless", description="starts a call and does not wait for it")
    async def careless(ctx: Context) -> str:
        background.append(asyncio.ensure_future(ctx.call("worker", "slow")))
        await calls_sent(served, ctx.task_id, 1)
        return "did not wait"

    worker, orch = await two_agents(stack, careless, gate, worker=picky_worker(gate))
    served["orch"] = orch
    client, task = await send(orch.url, "go")
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert artifact_text(done) == "did not wait"
    await call_canceled(worker, orch, task.id, 0)
    gate.event.set()


class HoldFirstAnswer:
    """ASGI middleware before the worker: its first POST (the call's message) is answered by
    the worker at once, but the answer is held until `release` is set."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.answered = asyncio.Event()
        self.release = asyncio.Event()
        self.body = b""
        self._held = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or self._held:
            await self.app(scope, receive, send)
            return
        self._held = True
        answer: list[Any] = []

        async def keep(message: Any) -> None:
            answer.append(message)

        await self.app(scope, receive, keep)
        bodies = [m.get("body", b"") for m in answer if m["type"] == "http.response.body"]
        self.body = b"".join(bodies)
        self.answered.set()
        await self.release.wait()
        for message in answer:
            await send(message)


@needs_crypto
async def test_a_turn_ending_while_a_calls_message_is_on_the_way_cancels_the_remote_task(
    stack: Stack,
) -> None:
    gate = Gate()
    hold: list[HoldFirstAnswer] = []

    def held(app: Any) -> HoldFirstAnswer:
        hold.append(HoldFirstAnswer(app))
        return hold[0]

    @agent(name="Impatient", description="starts a call and returns before it is answered")
    async def impatient(ctx: Context) -> str:
        asyncio.ensure_future(ctx.call("worker", "slow"))  # noqa: RUF006 (left on purpose)
        await hold[0].answered.wait()  # the remote has started its task; its answer is held
        return "did not wait"

    worker, orch = await two_agents(
        stack, impatient, gate, worker=picky_worker(gate), worker_wrap=held
    )
    client, task = await send(orch.url, "go")
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert artifact_text(done) == "did not wait"
    # No record names the remote task yet: only the stopped call knows it, once answered.
    turn = durable_of((await orch.record(task.id)).internal)
    op = turn.op(0) if turn is not None else None
    assert op is not None and op.remote_task_id is None
    hold[0].release.set()
    answer = json.loads(hold[0].body)
    remote_task_id = answer["result"]["task"]["id"]  # the client speaks 1.0 to our agents
    worker_client = await A2AClient.connect(worker.url, allow_private_urls=True)
    await wait_state(worker_client, remote_task_id, TaskState.CANCELED)
    gate.event.set()


@needs_crypto
async def test_a_gather_left_by_a_failing_call_cancels_the_other_remote_task(
    stack: Stack,
) -> None:
    gate = Gate()
    served: dict[str, Served] = {}

    @agent(name="Hasty", description="gives up when one of two calls fails")
    async def hasty(ctx: Context) -> str:
        try:
            await asyncio.gather(ctx.call("worker", "slow"), ctx.call("worker", "fail"))
        except RemoteFailed as failed:
            await calls_sent(served, ctx.task_id, 2)
            return f"gave up: {failed.result.text}"
        return "both answered"

    worker, orch = await two_agents(stack, hasty, gate, worker=picky_worker(gate))
    served["orch"] = orch
    client, task = await send(orch.url, "go")
    done = await wait_state(client, task.id, TaskState.COMPLETED)
    assert artifact_text(done) == "gave up: cannot do that"
    await call_canceled(worker, orch, task.id, 0)
    gate.event.set()
