"""Dev mode warns, once per task, when a task outgrows what a cloud store keeps inline
(devlimits.py): a part over the offload threshold, a task over DynamoDB's item."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from a2a_serverless import Context, agent
from tests.integration.jsonrpc_agents import result_of, user_message

LOGGER = "a2a_serverless.devlimits"


@agent(name="Sized", description="Answers <count> artifacts of <size> characters each.")
async def sized(ctx: Context) -> AsyncIterator[str]:
    count, size = (int(word) for word in ctx.text.split())
    for index in range(count):
        yield str(index % 10) * size


async def send(client: Any, text: str) -> dict[str, Any]:
    task: dict[str, Any] = await result_of(client, "message/send", {"message": user_message(text)})
    assert task["status"]["state"] == "completed"
    return task


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


async def test_a_part_over_the_threshold_is_warned_of_once(
    make_client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, LOGGER)
    async with make_client(sized) as (client, _app):
        # Five writes of one task, each with a 30 KB chunk: one warning.
        task = await send(client, "5 30000")
        (warning,) = warnings_of(caplog)
        assert f"task {task['id']} is " in warning
        assert "larger than the 16384 bytes a cloud store keeps in the task's item" in warning
        assert "content=s3://<bucket>" in warning and "content=gs://<bucket>" in warning
        assert "DynamoDB" not in warning  # 150 KB fits an item
        await send(client, "1 100")
        assert len(warnings_of(caplog)) == 1  # a small task: nothing to say


async def test_a_task_over_an_item_names_the_stores_limits(
    make_client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, LOGGER)
    async with make_client(sized) as (client, _app):
        await send(client, "1 1200000")
        (warning,) = warnings_of(caplog)
        assert "without a bucket it would not fit in DynamoDB's 409600-byte item" in warning
        assert "and Firestore's 1048576-byte document" in warning
        assert "even with one" not in warning

        # Many parts each under the threshold: a bucket does not help.
        caplog.clear()
        await send(client, "40 12000")
        (warning,) = warnings_of(caplog)
        assert "even with one, the" in warning
        assert "bytes left in the item are over DynamoDB's 409600" in warning


async def test_outside_dev_mode_nothing_is_said(
    make_client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, LOGGER)
    async with make_client(sized, dev_mode=False, push_notifications=False) as (client, _app):
        await send(client, "1 500000")
    assert warnings_of(caplog) == []
