"""Tasks started at once (eager.py): results and failures as `asyncio.gather` gives them,
whether or not the coroutines had to wait."""

from __future__ import annotations

import asyncio
import sys

import pytest

from a2a_serverless import eager

ON_312 = sys.version_info >= (3, 12)


async def value(result: int, *, waits: bool = False) -> int:
    if waits:
        await asyncio.sleep(0)
    return result


async def broken(text: str) -> int:
    raise ValueError(text)


async def test_results_come_in_order_whether_or_not_a_coroutine_waits() -> None:
    assert await eager.gather(value(1), value(2)) == [1, 2]
    assert await eager.gather(value(1), value(2, waits=True), value(3)) == [1, 2, 3]
    assert await eager.gather() == []


async def test_the_first_failure_is_raised_and_the_others_are_retrieved(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with pytest.raises(ValueError, match="first"):
        await eager.gather(value(1), broken("first"), broken("second"))
    with pytest.raises(ValueError, match="waited"):
        await eager.gather(value(1, waits=True), broken("waited"))
    await asyncio.sleep(0)
    assert "never retrieved" not in caplog.text


async def test_a_task_started_eagerly_runs_up_to_its_first_wait() -> None:
    steps: list[str] = []

    async def work() -> None:
        steps.append("started")
        await asyncio.sleep(0)
        steps.append("resumed")

    task = eager.start_task(work())
    assert steps == (["started"] if ON_312 else [])
    await task
    assert steps == ["started", "resumed"]
