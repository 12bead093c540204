"""Correlation ids and signals: the seams adapters use for logs and metrics."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from a2a_serverless.observability import (
    Signal,
    Signals,
    correlated,
    correlated_task,
    correlation_ids,
    set_task_id,
)
from tests.integration.agent_fixtures import RecordingQueue
from tests.integration.jsonrpc_agents import result_of, scripted, user_message

FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02}


class Recorder:
    def __init__(self) -> None:
        self.signals: list[Signal] = []

    def observe(self, signal: Signal) -> None:
        self.signals.append(signal)


def test_correlated_sets_and_restores_ids() -> None:
    assert correlation_ids() == {}
    with correlated(rpc_id=7):
        assert correlation_ids() == {"rpc_id": "7"}
        set_task_id("t-1")
        assert correlation_ids() == {"rpc_id": "7", "task_id": "t-1"}
        with correlated(task_id="t-2"):
            assert correlation_ids() == {"rpc_id": "7", "task_id": "t-2"}
        assert correlation_ids()["task_id"] == "t-1"
    assert correlation_ids() == {}


def test_correlated_task_is_correlated_with_a_task_id() -> None:
    with correlated(rpc_id=7):
        set_task_id("t-1")
        with correlated_task("t-2"):
            assert correlation_ids() == {"rpc_id": "7", "task_id": "t-2"}
            set_task_id("t-3")  # named inside the block: undone on leaving, as by `correlated`
            assert correlation_ids() == {"rpc_id": "7", "task_id": "t-3"}
        assert correlation_ids() == {"rpc_id": "7", "task_id": "t-1"}
    assert correlation_ids() == {}


def test_a_failing_observer_does_not_break_the_others(caplog: pytest.LogCaptureFixture) -> None:
    class Broken:
        def observe(self, signal: Signal) -> None:
            raise RuntimeError("metrics backend down")

    recorder = Recorder()
    signals = Signals([Broken(), recorder])
    signals.emit(Signal("task.completed", "t"))
    assert [s.name for s in recorder.signals] == ["task.completed"]
    assert "metrics backend down" in caplog.text


async def test_task_signals_follow_the_status_events(make_client: Any) -> None:
    recorder = Recorder()
    async with make_client(scripted, observers=[recorder], **FAST) as (client, app):
        task = await result_of(client, "message/send", {"message": user_message("hello")})
        await app.runtime.queue.drain()
    names = [s.name for s in recorder.signals if s.task_id == task["id"]]
    assert names[0] == "task.submitted"
    assert "task.working" in names
    assert names[-1] == "task.completed"
    [completed] = [s for s in recorder.signals if s.name == "task.completed"]
    assert completed.duration_s is not None and completed.duration_s >= 0
    assert all(s.duration_s is None for s in recorder.signals if s.name == "task.working")


async def test_logs_during_a_request_and_a_turn_carry_the_ids(
    make_client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[dict[str, str]] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(correlation_ids())

    handler = Capture()
    logger = logging.getLogger("a2a_serverless")
    logger.addHandler(handler)
    old_level = logger.level
    logger.setLevel(logging.DEBUG)
    queue = RecordingQueue()
    try:
        async with make_client(scripted, queue=queue, **FAST) as (client, app):
            params = {"message": user_message("hello"), "configuration": {"blocking": False}}
            task = await result_of(client, "message/send", params)
            [job] = queue.jobs_for(task["id"])
            await app.runtime.worker.handle(job)
            await app.runtime.worker.handle(job)  # a duplicate: logged as skipped
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    assert {"task_id": task["id"]} in seen, seen
    assert correlation_ids() == {}
