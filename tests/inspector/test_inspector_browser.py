"""The inspector page in a real headless Chromium (Debian's chromium and chromedriver, driven
with Selenium), against the real dev server (`a2a-serverless dev`, the example trip planner).

It sends a message and watches the stream to the task's completion, continues a multi-turn task
with a file attached, reads the task list, the timeline (and a replay from an event), the
artifacts, the push deliveries with a dead letter and its reason, redrives it, and reads the
agent card. Screenshots go to test-artifacts/inspector/ (gitignored). The browser and its driver
come from scripts/emulators/chromium.sh.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from tests.support.server import REPO, LiveServer

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SHOTS = REPO / "test-artifacts" / "inspector"
HINT = (
    "the inspector tests need Debian's chromium and chromium-driver: scripts/emulators/chromium.sh"
)


class Webhook:
    """A loopback webhook receiver answering every POST with `status` (400: dead-lettered)."""

    def __init__(self) -> None:
        self.status = 400
        self.received: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                self.rfile.read(length)
                owner.received.append(self.headers.get("x-a2a-notification-id", ""))
                self.send_response(owner.status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    hook = Webhook()
    yield hook
    hook.close()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail(f"{CHROMIUM} or {CHROMEDRIVER} is missing: {HINT}")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1440,1000",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(tmp_path / "chromium-profile", ignore_errors=True)


def wait_for(driver: WebDriver, find: Callable[[WebDriver], Any], timeout: float = 20) -> Any:
    """What `find` returns once it is truthy. The page re-renders its panels as it refreshes
    (every few seconds), so an element found may be gone by the next command: `find` reads
    what it needs (texts, attributes) from the elements it finds, and a read that met a
    re-render (a stale element) is simply tried again. Elements are never kept across calls."""

    def attempt(d: WebDriver) -> Any:
        try:
            return find(d)
        except WebDriverException:
            return None

    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(attempt)


def click(driver: WebDriver, find: Callable[[WebDriver], WebElement | None]) -> None:
    """Click what `find` finds, found afresh until the click lands (a click on an element the
    page has just replaced raises, and did nothing)."""

    def attempt(d: WebDriver) -> bool:
        element = find(d)
        if element is None:
            return False
        element.click()
        return True

    wait_for(driver, attempt)


def css(selector: str) -> Callable[[WebDriver], WebElement]:
    return lambda d: d.find_element(By.CSS_SELECTOR, selector)


def element_with(selector: str, text: str) -> Callable[[WebDriver], WebElement | None]:
    def find(driver: WebDriver) -> WebElement | None:
        for element in driver.find_elements(By.CSS_SELECTOR, selector):
            if text in element.text:
                return element
        return None

    return find


def text_in(selector: str, text: str) -> Callable[[WebDriver], str | None]:
    """The text of the first element matching `selector` that contains `text`."""

    def find(driver: WebDriver) -> str | None:
        for element in driver.find_elements(By.CSS_SELECTOR, selector):
            found = element.text
            if text in found:
                return found
        return None

    return find


def attributes(selector: str, name: str) -> Callable[[WebDriver], list[str | None]]:
    """Attribute `name` of every element matching `selector`, read in one go."""
    return lambda d: [e.get_attribute(name) for e in d.find_elements(By.CSS_SELECTOR, selector)]


def shot(driver: WebDriver, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / f"{name}.png"))


@pytest.mark.parametrize("refresh_ms", [None, 50], ids=["as-shipped", "refreshing-every-50ms"])
def test_the_inspector_talks_to_the_agent_and_shows_what_it_did(
    live_server: Callable[..., LiveServer],
    browser: WebDriver,
    webhook: Webhook,
    tmp_path: Path,
    refresh_ms: int | None,
) -> None:
    server = live_server(None, A2A_STORE_URL=f"sqlite:///{tmp_path / 'tasks.db'}")
    assert f"inspector:  {server.url}/_inspector/" in server.log()
    driver = browser
    driver.get(f"{server.url}/_inspector/")
    wait_for(driver, text_in("#agent-name", "Trip Planner"))
    if refresh_ms is not None:
        # The page re-renders what it shows as it refreshes (every 3 s); here it does so all the
        # time, so every step must hold however often the elements it read are replaced.
        driver.execute_script(f"setInterval(refreshTasks, {refresh_ms})")

    # Send and stream, with a webhook that refuses (400: the notification is dead-lettered).
    driver.find_element(By.ID, "webhook").send_keys(webhook.url)
    driver.find_element(By.ID, "message").send_keys("Plan 2 days in Lisbon")
    click(driver, lambda d: d.find_element(By.ID, "send"))
    log = wait_for(driver, text_in("[data-testid=stream-log]", "completed (final)"))
    assert "task submitted" in log and "artifact-update" in log
    artifact = wait_for(driver, text_in(".bubble.artifact", "Day 2"))
    assert "Lisbon" in artifact
    wait_for(driver, css(".bubble.agent [data-state=completed]"))
    shot(driver, "1-chat-stream")

    # The task list shows it completed; its timeline replays the whole log.
    def first_row(d: WebDriver) -> tuple[str, str | None]:
        row = d.find_element(By.CSS_SELECTOR, "#tasks tbody tr")
        return row.find_element(By.CSS_SELECTOR, ".state").text, row.get_attribute("data-task-id")

    # The list refreshes on its own clock: the row may first show the task still working.
    state, task_id = wait_for(driver, lambda d: (row := first_row(d))[0] == "completed" and row)
    assert state == "completed" and task_id
    click(driver, css(f"#tasks tbody tr[data-task-id='{task_id}']"))
    wait_for(driver, text_in("#timeline li.final", "completed (final)"))

    def timeline(d: WebDriver) -> tuple[list[str | None], str | None]:
        final = d.find_element(By.CSS_SELECTOR, "#timeline li.final")
        return attributes("#timeline li", "data-seq")(d), final.get_attribute("data-seq")

    seqs, final_seq = wait_for(driver, timeline)
    assert seqs == [str(n) for n in range(1, len(seqs) + 1)] and final_seq == seqs[-1]
    click(
        driver,
        lambda d: d.find_elements(By.CSS_SELECTOR, "#timeline li")[3].find_element(
            By.TAG_NAME, "button"
        ),
    )
    wait_for(driver, text_in("#replay-events", "end of stream"))
    replayed = wait_for(driver, attributes("#replay-events li[data-seq]", "data-seq"))
    assert replayed == seqs[3:]
    shot(driver, "2-timeline-replay")

    click(driver, css("#task-tabs [data-tab=artifacts]"))
    wait_for(driver, text_in("#artifacts", "Day 1"))

    # Push: the delivery of the final event was dead-lettered, with the receiver's 400 as reason.
    click(driver, css("#task-tabs [data-tab=push]"))
    letter = element_with("#push table.dead-letters tbody tr", "HTTP 400")
    assert wait_for(
        driver,
        lambda d: (
            (row := letter(d)) and row.find_element(By.CSS_SELECTOR, "[data-state=dead-lettered]")
        ),
    )
    assert wait_for(
        driver,
        lambda d: d.find_element(
            By.CSS_SELECTOR, "#push table.deliveries [data-state=dead-lettered]"
        ).is_displayed(),
    )
    shot(driver, "3-dead-letter")
    webhook.status = 200
    click(driver, lambda d: (row := letter(d)) and row.find_element(By.TAG_NAME, "button"))
    wait_for(driver, css("#push table.dead-letters [data-state=redriven]"))
    assert len(webhook.received) == 2 and webhook.received[0] == webhook.received[1]

    # Multi-turn, with a file attached: the agent asks, the answer continues the same task.
    click(driver, lambda d: d.find_element(By.ID, "chat-reset"))
    driver.find_element(By.ID, "webhook").clear()
    notes = tmp_path / "notes.txt"
    notes.write_text("window seat please")
    driver.find_element(By.ID, "files").send_keys(str(notes))
    driver.find_element(By.ID, "message").send_keys("Plan a trip")
    click(driver, lambda d: d.find_element(By.ID, "send"))
    wait_for(driver, css(".bubble.agent [data-state=input-required]"))
    asking = wait_for(driver, lambda d: d.find_element(By.ID, "chat-task").text)
    assert asking not in ("new", task_id)
    driver.find_element(By.ID, "message").send_keys("to Rome for 2 days")
    click(driver, lambda d: d.find_element(By.ID, "send"))
    wait_for(driver, text_in(".bubble.artifact", "Rome"))
    wait_for(
        driver,
        lambda d: (
            len(d.find_elements(By.CSS_SELECTOR, "[data-testid=stream-log]")) == 2
            and "completed (final)"
            in d.find_elements(By.CSS_SELECTOR, "[data-testid=stream-log]")[1].text
        ),
    )
    got = httpx.post(
        server.url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": asking}},
    ).json()
    task = got["result"]
    assert task["status"]["state"] == "completed"
    [first] = [m for m in task["history"] if m["role"] == "user"][:1]
    assert {
        "kind": "file",
        "file": {
            "name": "notes.txt",
            "mimeType": "text/plain",
            "bytes": "d2luZG93IHNlYXQgcGxlYXNl",
        },
    } in first["parts"]
    shot(driver, "4-multi-turn")

    # Filters: only completed tasks, then only the second conversation's.
    click(driver, css("#filter-state option[value=input-required]"))
    wait_for(driver, text_in("#tasks-total", "0 of 0"))
    click(driver, css("#filter-state option[value=completed]"))
    wait_for(driver, text_in("#tasks-total", "2 of 2"))

    # The agent card as clients see it (v0.3).
    click(driver, css("#side-tabs [data-tab=card]"))
    card = wait_for(driver, text_in("[data-testid=card-json]", '"protocolVersion": "0.3.0"'))
    assert '"name": "Trip Planner"' in card
    assert (
        wait_for(
            driver, lambda d: d.find_element(By.CSS_SELECTOR, "#card-versions button.active").text
        )
        == "v0.3"
    )
    shot(driver, "5-agent-card")
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_only_web_addresses_become_links(
    live_server: Callable[..., LiveServer], browser: WebDriver, tmp_path: Path
) -> None:
    # An agent's (or client's) file URI with another scheme, `javascript:` above all, is text:
    # nothing on the page runs it when clicked (the CSP blocks it too; this does not rely on it).
    server = live_server(
        "tests.inspector.link_agent:links", A2A_STORE_URL=f"sqlite:///{tmp_path / 'tasks.db'}"
    )
    driver = browser
    driver.get(f"{server.url}/_inspector/")
    wait_for(driver, text_in("#agent-name", "Links"))
    driver.find_element(By.ID, "message").send_keys("files please")
    driver.find_element(By.ID, "send").click()
    # The chat's bubbles are not re-rendered by the page's refresh: the element may be kept.
    artifact = wait_for(driver, element_with(".bubble.artifact", "report.pdf"))
    links = {a.text: a.get_attribute("href") for a in artifact.find_elements(By.TAG_NAME, "a")}
    assert links == {"report.pdf": "https://files.example/report.pdf"}
    shown = [s.text for s in artifact.find_elements(By.CSS_SELECTOR, ".part.file .uri")]
    assert sorted(shown) == ["data.html", "mixed-case.pdf", "script.pdf"]
    for element in artifact.find_elements(By.CSS_SELECTOR, ".part.file .uri"):
        element.click()
    assert driver.title != "owned"
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
