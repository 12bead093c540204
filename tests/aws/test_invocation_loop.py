"""The Lambda container's event loop: an invocation started as an eager task (Python 3.12+),
the loop turning only when something waits for it, and everything a turn gives a coroutine
(the running loop, a current task, the loop's async generator hooks) there all the same."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator

import pytest

from a2a_serverless_aws.container import InvocationLoop, _new_loop, run_invocation

pytestmark = pytest.mark.skipif(sys.version_info < (3, 12), reason="eager tasks are 3.12's")


async def value(result: object) -> object:
    """Work that never waits."""
    return result


@pytest.fixture
def loop() -> Iterator[InvocationLoop]:
    made = InvocationLoop()
    yield made
    made.close()
    asyncio.set_event_loop(None)


def test_work_that_never_waits_ends_without_a_turn_of_the_loop(loop: InvocationLoop) -> None:
    turns = 0
    run_once = loop._run_once  # type: ignore[attr-defined]

    def counted() -> None:
        nonlocal turns
        turns += 1
        run_once()

    loop._run_once = counted  # type: ignore[attr-defined]

    async def answer() -> tuple[bool, bool, bool, bool]:
        hooks = sys.get_asyncgen_hooks()
        return (
            asyncio.get_running_loop() is loop,
            asyncio.current_task() is not None,
            loop.is_running(),
            hooks.firstiter == loop._asyncgen_firstiter_hook,
        )

    assert run_invocation(loop, answer()) == (True, True, True, True)
    assert turns == 0
    assert not loop.is_running()
    assert asyncio._get_running_loop() is None


def test_work_that_waits_is_run_to_its_end_and_the_next_invocation_too(
    loop: InvocationLoop,
) -> None:
    async def waits(value: int) -> int:
        await asyncio.sleep(0)
        async with asyncio.timeout(5):
            await asyncio.sleep(0.001)
        return value

    # An invocation over in its eager start leaves the loop able to turn for the next one.
    assert run_invocation(loop, value(1)) == 1
    assert not loop.has_waiting_work()
    assert run_invocation(loop, waits(2)) == 2


def test_callbacks_and_timers_an_eager_invocation_leaves_run_on_its_turn(
    loop: InvocationLoop,
) -> None:
    ran: list[str] = []

    async def schedules() -> str:
        loop.call_soon(ran.append, "soon")
        loop.call_later(0, ran.append, "timer")
        return "answered"

    assert run_invocation(loop, schedules()) == "answered"
    assert ran == ["soon", "timer"]
    assert not loop.has_waiting_work()


def test_a_task_started_eagerly_runs_on_in_later_invocations(loop: InvocationLoop) -> None:
    """Other tasks carry on at the next invocation, as before."""
    steps: list[int] = []

    async def background() -> None:
        for step in range(3):
            steps.append(step)
            await asyncio.sleep(0)

    async def starts() -> None:
        loop.create_task(background())

    run_invocation(loop, starts())
    for _ in range(3):
        run_invocation(loop, value(None))
    assert steps == [0, 1, 2]


def test_an_error_is_raised_to_the_handler(loop: InvocationLoop) -> None:
    async def fails() -> None:
        raise ValueError("refused")

    async def fails_later() -> None:
        await asyncio.sleep(0)
        raise KeyError("gone")

    with pytest.raises(ValueError, match="refused"):
        run_invocation(loop, fails())
    with pytest.raises(KeyError):
        run_invocation(loop, fails_later())
    assert run_invocation(loop, value("still serving")) == "still serving"


def test_an_async_generator_left_open_is_closed_by_the_loop(loop: InvocationLoop) -> None:
    closed: list[bool] = []

    async def frames() -> object:
        try:
            yield 1
            yield 2
        finally:
            await asyncio.sleep(0)  # only the loop's finalizer can run this
            closed.append(True)

    async def reads_one() -> int:
        stream = frames()
        first = await anext(stream)
        del stream  # abandoned: the loop's finalizer hook schedules its aclose()
        return first  # type: ignore[return-value]

    assert run_invocation(loop, reads_one()) == 1
    run_invocation(loop, value(None))
    run_invocation(loop, value(None))
    assert closed == [True]


def test_the_container_loop_is_asyncios_own_made_eager() -> None:
    made = _new_loop()
    try:
        assert type(made) is InvocationLoop
    finally:
        made.close()
