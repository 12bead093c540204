"""The inspector's Calls tab in a real headless Chromium: an orchestrator (in-process, on
uvicorn) has called a worker durably; the page lists the call with its remote, its remote task,
its state and what resumed it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from a2a_serverless import Agent
from a2a_serverless.models import TaskState
from tests.inspector.test_inspector_browser import browser, click, css, shot, text_in, wait_for
from tests.integration.test_durable_calls import (
    Gate,
    Orchestrator,
    Stack,
    send,
    two_agents,
    wait_state,
    wait_suspended,
)

pytestmark = pytest.mark.browser
__all__ = ["browser"]  # the fixture, used by name


@pytest.fixture
async def stack(tmp_path: Path) -> AsyncIterator[Stack]:
    stack = Stack(tmp_path)
    try:
        yield stack
    finally:
        await stack.close()


async def test_the_calls_tab_shows_a_durable_call(stack: Stack, browser: WebDriver) -> None:
    gate, runs = Gate(), []
    orchestrator = Agent(name="Orchestrator", description="calls", executor=Orchestrator(runs))
    worker, orch = await two_agents(stack, orchestrator, gate)
    client, task = await send(orch.url, "hello")
    await wait_suspended(client, task.id)
    gate.event.set()
    await wait_state(client, task.id, TaskState.COMPLETED)

    def look() -> str:
        browser.get(f"{orch.url}/_inspector/")
        click(browser, css(f"#tasks tbody tr[data-task-id='{task.id}']"))
        click(browser, css("#task-tabs [data-tab=calls]"))
        row = wait_for(browser, text_in("#calls table.calls tbody tr", "callback"))
        summary = wait_for(browser, text_in("#calls p", "suspension"))
        shot(browser, "calls")
        return f"{summary}\n{row}"

    shown = await asyncio.to_thread(look)
    assert worker.url in shown and "done" in shown and "call" in shown
    assert "not suspended; 1 suspension(s)" in shown
