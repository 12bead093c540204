"""An executor's cancel hook (`CancelableExecutor.cancel`), the cancel of `@agent` functions, and
the updater's SDK-named verbs.

A client's cancel, in either protocol version and binding, stops a running turn of an executor
with a hook and calls the hook once; a turn that ends by itself, or a task canceled between
turns, calls no hook; a hook that raises or hangs changes nothing: the task is canceled and the
worker goes on running turns.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless import Agent, Context, Settings, TaskEnded, TaskUpdater, agent
from a2a_serverless.executor import AgentExecutor, CancelableExecutor, has_cancel_hook
from a2a_serverless.models import CancelTaskRequest, SendMessageRequest, Task, TaskState
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless.runtime import Runtime
from a2a_serverless.service import Caller
from a2a_serverless.store.base import Store
from a2a_serverless.store.memory import MemoryStore
from a2a_serverless.testing import AgentTestClient
from a2a_serverless.testing.client import Binding, Version
from tests.integration.agent_fixtures import Gates, user_message

VERSIONS_AND_BINDINGS = [
    pytest.param(version, binding, id=f"{version}-{binding}")
    for version in ("0.3", "1.0")
    for binding in ("jsonrpc", "rest")
]
WAIT_S = 5.0  # how long a test waits for something that happens at once on a working machine


class Holding:
    """Starts work and holds the turn until released (or stopped); records what befalls it.

    `hook`: what its cancel hook does: "record", "raise" or "hang".
    """

    def __init__(self, hook: str = "record") -> None:
        self.hook = hook
        self.gates = Gates()
        self.stopped: list[str] = []
        self.hook_calls: list[tuple[Context, TaskUpdater]] = []
        self.hook_writes: list[str] = []
        self.hook_cut_short = False
        self.hook_done = asyncio.Event()
        # The worker task's pending cancels as the hook began: a stopped turn leaves none.
        self.hook_cancelling: list[int] = []

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.start_work("holding")
        try:
            await self.gates.arrive_and_wait(context.task_id)
        except asyncio.CancelledError:
            self.stopped.append(context.task_id)
            raise
        if context.text == "ask":
            await updater.requires_input("more?")
            return
        await updater.complete("released")

    async def cancel(self, context: Context, updater: TaskUpdater) -> None:
        self.hook_calls.append((context, updater))
        running = asyncio.current_task()
        assert running is not None
        self.hook_cancelling.append(running.cancelling())
        try:
            await asyncio.sleep(0)  # where a cancel left pending would cut it short
            try:
                await updater.add_artifact("from the hook")
            except TaskEnded as ended:
                self.hook_writes.append(str(ended))
            if self.hook == "raise":
                raise RuntimeError("the hook broke")
            if self.hook == "hang":
                try:
                    await asyncio.Event().wait()
                except asyncio.CancelledError:
                    self.hook_cut_short = True
                    raise
        finally:
            self.hook_done.set()


def holding_agent(executor: Holding) -> Agent:
    return Agent("Holding", "Holds its turn.", executor)


def test_an_executor_with_cancel_is_a_cancelable_executor() -> None:
    assert isinstance(Holding(), CancelableExecutor)
    assert isinstance(Holding(), AgentExecutor)

    class NoHook:
        async def execute(self, context: Context, updater: TaskUpdater) -> None: ...

    assert isinstance(NoHook(), AgentExecutor)
    assert not isinstance(NoHook(), CancelableExecutor)


def test_has_cancel_hook_answers_as_the_protocol_does() -> None:
    # The worker's cheap check and the Protocol's isinstance agree on each kind of executor.
    class NoHook:
        async def execute(self, context: Context, updater: TaskUpdater) -> None: ...

    @agent(name="Async", description="Async.")
    async def async_fn(text: str) -> str:
        return text

    @agent(name="Sync", description="Sync.")
    def sync_fn(text: str) -> str:
        return text

    executors: list[AgentExecutor] = [Holding(), NoHook(), Verb("complete")]
    executors += [a.executor for a in (async_fn, sync_fn) if a.executor is not None]
    assert len(executors) == 5
    for executor in executors:
        assert has_cancel_hook(executor) == isinstance(executor, CancelableExecutor), executor
    assert not has_cancel_hook(None)


@pytest.mark.parametrize(("version", "binding"), VERSIONS_AND_BINDINGS)
async def test_a_cancel_stops_the_turn_and_calls_the_hook_once(
    version: Version, binding: Binding
) -> None:
    executor = Holding()
    async with AgentTestClient(holding_agent(executor), version=version, binding=binding) as client:
        task = await client.send("hold", blocking=False)
        await executor.gates.wait_arrived(task.id, WAIT_S)

        canceled = await client.cancel_task(task.id)
        assert canceled.status.state is TaskState.CANCELED

        await asyncio.wait_for(executor.hook_done.wait(), WAIT_S)
        # execute was stopped (cancelled), not left to find out at its next write.
        assert executor.stopped == [task.id]
        [(context, updater)] = executor.hook_calls
        assert context.task_id == task.id
        assert context.text == "hold"
        assert updater.task_id == task.id
        assert updater.canceled_elsewhere
        # The task is canceled already: the hook's writes are refused.
        assert executor.hook_writes == ["task is canceled"]
        assert executor.hook_cancelling == [0]
        assert (await client.get_task(task.id)).status.state is TaskState.CANCELED
    assert len(executor.hook_calls) == 1


async def test_a_cancel_made_by_another_instance_reaches_the_hook(tmp_path: Path) -> None:
    # The cancel's write wakes nothing in the worker's process, so the worker learns it by
    # reading the task every `cancel_poll_s`.
    executor = Holding()
    async with two_instances(holding_agent(executor), tmp_path) as (here, there):
        there.worker.cancel_poll_s = 0.05
        task = await send_there(here, "hold")
        await executor.gates.wait_arrived(task.id, WAIT_S)
        await cancel_here(here, task.id)
        await asyncio.wait_for(executor.hook_done.wait(), WAIT_S)
        assert executor.stopped == [task.id]
        assert len(executor.hook_calls) == 1


@contextlib.asynccontextmanager
async def two_instances(
    agent_: Agent, tmp_path: Path, *, store: Store | None = None
) -> AsyncIterator[tuple[Runtime, Runtime]]:
    """Two Runtimes of `agent_` on one SQLite store (or `store`), as two function instances:
    the turns of tasks sent to the first (`here`) run in the second (`there`), whose process a
    write made here does not wake."""
    settings = Settings(store_url=f"sqlite:///{tmp_path / 'tasks.db'}")
    queue_here, queue_there = InProcessQueue(), InProcessQueue()
    here = Runtime(agent_, settings, store=store, queue=queue_here, push_notifications=False)
    there = Runtime(agent_, settings, store=store, queue=queue_there, push_notifications=False)
    queue_here.bind(there.jobs)
    try:
        yield here, there
    finally:
        await queue_here.drain()
        await here.aclose()
        await there.aclose()


async def send_there(here: Runtime, text: str) -> Task:
    """A message to a new task, sent to `here` without blocking (its turn runs there)."""
    params = SendMessageRequest.model_validate(
        {"message": user_message(text), "configuration": {"returnImmediately": True}}
    )
    task = await here.service.send_message(params, Caller())
    assert isinstance(task, Task)
    return task


async def cancel_here(here: Runtime, task_id: str) -> None:
    await here.service.cancel_task(CancelTaskRequest(id=task_id), Caller())


class Stubborn(Holding):
    """Swallows the refusal of its write after the cancel and would wait on forever."""

    def __init__(self) -> None:
        super().__init__()
        self.let_go = asyncio.Event()

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.start_work("holding")
        try:
            await self.gates.arrive_and_wait(context.task_id)
            with contextlib.suppress(TaskEnded):
                await updater.add_artifact("after the cancel")
            await self.let_go.wait()  # set by the test's teardown alone
        except asyncio.CancelledError:
            self.stopped.append(context.task_id)
            raise


async def test_a_refused_write_stops_the_turn_without_waiting_for_the_poll(
    tmp_path: Path,
) -> None:
    # The cancel is made by another instance and the poll is an hour: the turn learns of it
    # from its own refused write, and is stopped then, even though it swallowed the TaskEnded.
    executor = Stubborn()
    agent_ = dataclasses.replace(holding_agent(executor), cancel_poll_s=3600)
    async with two_instances(agent_, tmp_path) as (here, _):
        try:
            task = await send_there(here, "hold")
            await executor.gates.wait_arrived(task.id, WAIT_S)
            await cancel_here(here, task.id)
            executor.gates.release(task.id)
            await asyncio.wait_for(executor.hook_done.wait(), WAIT_S)
            assert executor.stopped == [task.id]
            assert len(executor.hook_calls) == 1
            assert executor.hook_cancelling == [0]
        finally:
            executor.let_go.set()  # a broken run ends here rather than hang the teardown


async def test_a_turn_stopped_by_its_refused_write_gets_the_whole_hook(tmp_path: Path) -> None:
    # The turn's write is refused and it stops itself (TaskEnded): nothing cancels it, and no
    # cancel is left over to cut its hook short at its first await. (One memory store for both
    # instances: its refusal awaits nothing, which would let such a cancel through.)
    executor = Holding()
    agent_ = dataclasses.replace(holding_agent(executor), cancel_poll_s=3600)
    async with two_instances(agent_, tmp_path, store=MemoryStore()) as (here, _):
        task = await send_there(here, "hold")
        await executor.gates.wait_arrived(task.id, WAIT_S)
        await cancel_here(here, task.id)
        executor.gates.release(task.id)  # its `complete` is refused
        await asyncio.wait_for(executor.hook_done.wait(), WAIT_S)
        assert executor.stopped == []
        assert executor.hook_writes == ["task is canceled"]
        assert executor.hook_cancelling == [0]


async def test_no_hook_when_the_turn_ends_by_itself() -> None:
    executor = Holding()
    async with AgentTestClient(holding_agent(executor)) as client:
        task = await client.send("hold", blocking=False)
        await executor.gates.wait_arrived(task.id, WAIT_S)
        executor.gates.release(task.id)
        done = await _wait_for_state(client, task.id, TaskState.COMPLETED)
        assert done.status.message is not None
    assert executor.hook_calls == []
    assert executor.stopped == []


class Failing(Holding):
    """Raises, or outlives its time budget, with a cancel hook: the turn fails as any other."""

    def __init__(self, how: str) -> None:
        super().__init__()
        self.how = how

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.start_work("about to fail")
        if self.how == "raise":
            raise RuntimeError("the agent broke")
        await asyncio.Event().wait()


@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ("raise", "The agent failed while working on this task."),
        ("hang", "The agent did not finish within its time budget of 0.2 s."),
    ],
)
async def test_a_watched_turn_that_fails_fails_the_task_without_the_hook(
    how: str, reason: str
) -> None:
    executor = Failing(how)
    agent = Agent("Failing", "Fails.", executor, time_budget_s=0.2)
    async with AgentTestClient(agent) as client:
        task = await client.send("go", blocking=False)
        failed = await _wait_for_state(client, task.id, TaskState.FAILED)
        assert failed.status.message.parts[0].text == reason
    assert executor.hook_calls == []


async def test_no_hook_for_a_task_canceled_between_turns() -> None:
    executor = Holding()
    async with AgentTestClient(holding_agent(executor)) as client:
        task = await client.send("ask", blocking=False)
        await executor.gates.wait_arrived(task.id, WAIT_S)
        executor.gates.release(task.id)
        await _wait_for_state(client, task.id, TaskState.INPUT_REQUIRED)
        canceled = await client.cancel_task(task.id)
        assert canceled.status.state is TaskState.CANCELED
    assert executor.hook_calls == []


@pytest.mark.parametrize("hook", ["raise", "hang"])
async def test_a_hook_that_fails_does_not_break_the_cancel(
    hook: str, caplog: pytest.LogCaptureFixture
) -> None:
    executor = Holding(hook)
    async with AgentTestClient(holding_agent(executor)) as client:
        client.app.runtime.worker.cancel_timeout_s = 0.2
        task = await client.send("hold", blocking=False)
        await executor.gates.wait_arrived(task.id, WAIT_S)
        with caplog.at_level(logging.WARNING, logger="a2a_serverless.worker"):
            canceled = await client.cancel_task(task.id)
            assert canceled.status.state is TaskState.CANCELED
            await asyncio.wait_for(executor.hook_done.wait(), WAIT_S)
            # The worker is free again: the next task runs to its end.
            second = await client.send("next", blocking=False)
            await executor.gates.wait_arrived(second.id, WAIT_S)
            executor.gates.release(second.id)
            await _wait_for_state(client, second.id, TaskState.COMPLETED)
        assert (await client.get_task(task.id)).status.state is TaskState.CANCELED
    assert len(executor.hook_calls) == 1
    expected = "raised" if hook == "raise" else "took over 0.2 s"
    assert any(expected in r.getMessage() for r in caplog.records), caplog.text
    if hook == "hang":
        assert executor.hook_cut_short


# --- @agent functions: an async one is stopped, a sync one runs on -------------------------------


class Waiting:
    """What an agent function waits on, and what befalls it: arrived, stopped, its finally."""

    def __init__(self) -> None:
        self.gates = Gates()
        self.cancelled: list[str] = []
        self.cleaned_up: list[str] = []
        self.finished = threading.Event()


def async_function_agent(waiting: Waiting) -> Agent:
    @agent(name="Sleeper", description="Awaits a long wait, cleaning up after.")
    async def sleeper(ctx: Context) -> str:
        try:
            # Nothing but an await: no updater write would tell it of a cancel.
            await waiting.gates.arrive_and_wait(ctx.task_id)
        except asyncio.CancelledError:
            waiting.cancelled.append(ctx.task_id)
            raise
        finally:
            waiting.cleaned_up.append(ctx.task_id)
        return "woke up"

    return sleeper


def async_generator_agent(waiting: Waiting) -> Agent:
    @agent(name="Streamer", description="Streams a chunk, then awaits.")
    async def streamer(ctx: Context) -> AsyncIterator[str]:
        yield "first"
        try:
            await waiting.gates.arrive_and_wait(ctx.task_id)
        finally:
            waiting.cleaned_up.append(ctx.task_id)
        yield "second"

    return streamer


@pytest.mark.parametrize("make_agent", [async_function_agent, async_generator_agent])
@pytest.mark.parametrize(("version", "binding"), [("1.0", "jsonrpc"), ("0.3", "rest")])
async def test_a_cancel_stops_an_async_function_at_its_await(
    make_agent: Any, version: Version, binding: Binding
) -> None:
    waiting = Waiting()
    sleeper = make_agent(waiting)
    assert isinstance(sleeper.executor, CancelableExecutor)
    async with AgentTestClient(sleeper, version=version, binding=binding) as client:
        task = await client.send("sleep", blocking=False)
        await waiting.gates.wait_arrived(task.id, WAIT_S)

        canceled = await client.cancel_task(task.id)
        assert canceled.status.state is TaskState.CANCELED
        # Stopped at once: its finally runs without its wait ever being released.
        await _wait_until(lambda: waiting.cleaned_up == [task.id])
        assert (await client.get_task(task.id)).status.state is TaskState.CANCELED
        # The worker is free: the next task runs to its end.
        second = await client.send("again", blocking=False)
        await waiting.gates.wait_arrived(second.id, WAIT_S)
        waiting.gates.release(second.id)
        await _wait_for_state(client, second.id, TaskState.COMPLETED)


async def test_a_cancel_from_another_instance_stops_an_async_function(tmp_path: Path) -> None:
    # The worker learns of the cancel within the agent's `cancel_poll_s`, reading its task.
    waiting = Waiting()
    sleeper = dataclasses.replace(async_function_agent(waiting), cancel_poll_s=0.05)
    async with two_instances(sleeper, tmp_path) as (here, _):
        task = await send_there(here, "sleep")
        await waiting.gates.wait_arrived(task.id, WAIT_S)
        await cancel_here(here, task.id)
        await _wait_until(lambda: waiting.cleaned_up == [task.id])
        assert waiting.cancelled == [task.id]
        record = await here.store.get_task(task.id)
        assert record is not None and record.task.status.state is TaskState.CANCELED


async def test_a_sync_function_runs_on_and_its_answer_is_dropped() -> None:
    waiting = Waiting()
    release = threading.Event()

    @agent(name="Blocking", description="Blocks its thread until let go.")
    def blocking(text: str) -> str:
        waiting.gates.arrived[text].set()  # read by the test's loop once set: a flag, no wake-up
        release.wait(WAIT_S)
        waiting.finished.set()
        return "too late"

    assert not isinstance(blocking.executor, CancelableExecutor)
    async with AgentTestClient(blocking) as client:
        task = await client.send("block", blocking=False)
        await _wait_until(lambda: waiting.gates.arrived["block"].is_set())
        canceled = await client.cancel_task(task.id)
        assert canceled.status.state is TaskState.CANCELED
        release.set()
        await _wait_until(waiting.finished.is_set)
        queue = client.app.runtime.queue
        assert isinstance(queue, InProcessQueue)
        await queue.drain()  # the turn is over: what the function returned was refused
        done = await client.get_task(task.id)
    assert done.status.state is TaskState.CANCELED
    assert not done.artifacts


async def _wait_until(check: Callable[[], bool]) -> None:
    async with asyncio.timeout(WAIT_S):
        while not check():  # noqa: ASYNC110
            await asyncio.sleep(0.01)


# --- the updater's verbs as the SDK names them ----------------------------------------------------


class Verb:
    def __init__(self, verb: str) -> None:
        self.verb = verb

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await getattr(updater, self.verb)(f"by {self.verb}")


@pytest.mark.parametrize(
    ("verb", "state"),
    [
        ("failed", TaskState.FAILED),
        ("fail", TaskState.FAILED),
        ("cancel", TaskState.CANCELED),
        ("reject", TaskState.REJECTED),
    ],
)
async def test_the_updater_verbs_end_the_task(verb: str, state: TaskState) -> None:
    async with AgentTestClient(Agent("Verb", "Says one verb.", Verb(verb))) as client:
        task = await client.send("go")
        done = await _wait_for_state(client, task.id, state)
        assert done.status.message is not None
        assert done.status.message.parts[0].text == f"by {verb}"  # type: ignore[union-attr]


async def _wait_for_state(client: AgentTestClient, task_id: str, state: TaskState) -> Any:
    async with asyncio.timeout(WAIT_S):
        while True:
            task = await client.get_task(task_id)
            if task.status.state is state:
                return task
            await asyncio.sleep(0.01)
