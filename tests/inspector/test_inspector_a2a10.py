"""The inspector in headless Chromium (as test_inspector_browser.py, whose browser fixture and
helpers it uses) against a dev server running tests/inspector/agents.py's agent: the page speaks
A2A 1.0 by default (and 0.3 when chosen), joins a token stream into flowing text, pages a
timeline of a thousand events, shows a task's and an event's JSON as text, and cancels a task
that is not over.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from tests.inspector.test_inspector_browser import browser, shot, text_in, wait_for
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

__all__ = ["browser"]  # the fixture, used by name

AGENT = "tests.inspector.agents:streamer"
TOKENS = 1000
TIMELINE_PAGE = 100  # inspector.js's
HOSTILE = "<img src=x onerror=alert(1)>"


def texts(driver: WebDriver, css: str) -> list[str]:
    return [element.text.strip() for element in driver.find_elements(By.CSS_SELECTOR, css)]


def seqs(driver: WebDriver) -> list[int]:
    return [
        int(li.get_attribute("data-seq") or 0)
        for li in driver.find_elements(By.CSS_SELECTOR, "#timeline li[data-seq]")
    ]


def test_a_token_stream_reads_as_text_and_its_long_timeline_is_paged(
    live_server: Callable[..., LiveServer], browser: WebDriver, tmp_path: Path
) -> None:
    server = live_server(AGENT, A2A_STORE_URL=f"sqlite:///{tmp_path / 'tasks.db'}")
    driver = browser
    driver.get(f"{server.url}/_inspector/")
    wait_for(driver, text_in("#agent-name", "Streamer"))
    assert Select(driver.find_element(By.ID, "protocol")).first_selected_option.text == "A2A 1.0"

    driver.find_element(By.ID, "message").send_keys(f"tokens {TOKENS}")
    driver.find_element(By.ID, "send").click()
    wait_for(driver, text_in("[data-testid=stream-log]", "completed (final)"), timeout=60)
    # The chunks of the artifact flow on as one text, not a line each.
    joined = "".join(f"t{n} " for n in range(1, TOKENS + 1)).strip()
    assert texts(driver, ".bubble.artifact .part") == [joined]
    shot(driver, "a2a10-1-token-stream")

    row = wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#tasks tbody tr"))
    row.click()
    # The whole log is read; the page shows its newest TIMELINE_PAGE events, one button each.
    wait_for(driver, text_in("#timeline li.final", "completed (final)"), timeout=60)
    # Every event the stream had (the chunks, the states around them) is in the log.
    total = len(driver.find_elements(By.CSS_SELECTOR, "[data-testid=stream-log] li"))
    assert total > TOKENS
    wait_for(driver, text_in("#timeline-range", f"of {total}"))
    last_page = (total - 1) // TIMELINE_PAGE * TIMELINE_PAGE
    assert seqs(driver) == list(range(last_page + 1, total + 1))
    assert len(driver.find_elements(By.CSS_SELECTOR, "#timeline button")) <= TIMELINE_PAGE
    driver.find_element(By.ID, "timeline-earlier").click()
    wait_for(driver, lambda d: seqs(d) == list(range(last_page - 99, last_page + 1)))
    assert len(driver.find_elements(By.CSS_SELECTOR, "#timeline li")) == TIMELINE_PAGE
    page = f"events {last_page - 99}\u2013{last_page} of {total}"
    assert page in driver.find_element(By.ID, "timeline-range").text
    # An event's JSON, as the server sent it in A2A 1.0.
    first_seq = last_page - 99
    first = driver.find_element(By.CSS_SELECTOR, f"#timeline li[data-seq='{first_seq}']")
    first.find_element(By.CSS_SELECTOR, "details.raw summary").click()
    raw = wait_for(
        driver, text_in(f"#timeline li[data-seq='{first_seq}'] details.raw pre", "artifactUpdate")
    )
    assert '"text": "t' in raw and '"kind"' not in raw
    shot(driver, "a2a10-2-timeline-page")

    driver.find_element(By.CSS_SELECTOR, "#task-tabs [data-tab=artifacts]").click()
    wait_for(driver, text_in("#artifacts", f"t{TOKENS}"))
    assert texts(driver, "#artifacts .part") == [joined]
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_a_task_that_is_not_over_is_canceled_and_its_json_shown_as_text(
    live_server: Callable[..., LiveServer], browser: WebDriver, tmp_path: Path
) -> None:
    server = live_server(AGENT, A2A_STORE_URL=f"sqlite:///{tmp_path / 'tasks.db'}")
    driver = browser
    driver.get(f"{server.url}/_inspector/")
    wait_for(driver, text_in("#agent-name", "Streamer"))

    driver.find_element(By.ID, "message").send_keys(f"hello {HOSTILE}")
    driver.find_element(By.ID, "send").click()
    wait_for(
        driver,
        lambda d: d.find_element(By.CSS_SELECTOR, ".bubble.agent [data-state=input-required]"),
    )
    asking = driver.find_element(By.ID, "chat-task").text
    row = wait_for(
        driver, lambda d: d.find_element(By.CSS_SELECTOR, f"#tasks tr[data-task-id='{asking}']")
    )
    row.click()
    wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#task-state[data-state]"))
    cancel = wait_for(driver, lambda d: d.find_element(By.ID, "task-cancel"))
    wait_for(driver, lambda d: cancel.is_displayed())

    # The task's JSON is text: the client's markup is shown, never made elements.
    driver.find_element(By.CSS_SELECTOR, "#task-tabs [data-tab=json]").click()
    task_json = wait_for(driver, text_in("[data-testid=task-json]", HOSTILE))
    assert '"state": "TASK_STATE_INPUT_REQUIRED"' in task_json
    assert '"role": "ROLE_USER"' in task_json
    assert driver.find_elements(By.CSS_SELECTOR, "#task-json *, .bubble img") == []

    cancel.click()
    wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#task-state[data-state=canceled]"))
    wait_for(driver, text_in("[data-testid=task-json]", "TASK_STATE_CANCELED"))
    assert not driver.find_element(By.ID, "task-cancel").is_displayed()
    # The chat no longer continues the canceled task.
    assert driver.find_element(By.ID, "chat-task").text == "new"
    wait_for(driver, text_in(f"#tasks tr[data-task-id='{asking}']", "canceled"))
    shot(driver, "a2a10-3-canceled")

    # Spoken in 0.3 when chosen: the same task in 0.3's shapes.
    Select(driver.find_element(By.ID, "protocol")).select_by_visible_text("A2A 0.3")
    wait_for(driver, text_in("[data-testid=task-json]", '"state": "canceled"'))
    assert '"kind": "task"' in driver.find_element(By.ID, "task-json").text
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
