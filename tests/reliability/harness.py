"""The app under fuzzing: our ASGI app on a real SQLite store, called in-process from sync
hypothesis tests, plus the checks run after a fuzzing session.

`FuzzApp` owns an event loop of its own: each request runs the ASGI app to completion on it
(the in-process queue's worker runs on the same loop, during the requests), so hypothesis tests
stay plain functions and one app (one store) lives through every example of a test.

After the examples, `assert_intact()` checks that nothing the fuzzing stored is corrupt: every
task reads back and validates, its event log is gap-free from 1 to its last seq, every event
and push config validates and re-encodes as strict UTF-8 JSON, no job was dead-lettered, and
no error was logged.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2a_serverless import Context, InputRequired, Settings, agent, create_app
from a2a_serverless.models import Task, TaskStatusUpdateEvent
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless.store.base import TaskQuery
from tests.push.webhook_server import WebhookServer


@agent(
    name="Fuzz target",
    description="Answers anything; 'ask...' asks for input first.",
    input_modes=["*/*"],
    output_modes=["*/*"],
)
async def fuzz_agent(ctx: Context) -> Any:
    text = ctx.text
    if text.startswith("ask") and not ctx.is_continuation:
        raise InputRequired("What else?")
    return f"{len(ctx.message.parts)} part(s), {len(text)} characters"


# Settings for fuzzing: short waits so that nothing a fuzzer sends can stall a run, and
# webhooks that give up fast (the receiver may be given URLs that do not exist).
FUZZ_SETTINGS: dict[str, Any] = {
    "dev_mode": True,
    "blocking_timeout_s": 2.0,
    "stream_timeout_s": 2.0,
    "poll_interval_s": 0.01,
    "keepalive_s": 1.0,
    "push_max_attempts": 2,
    "push_backoff_base_s": 0.01,
    "push_backoff_max_s": 0.02,
    "push_timeout_s": 1.0,
}


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip()


class LogRecorder(logging.Handler):
    """Every record of the package's loggers, kept for the checks."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def errors(self) -> list[str]:
        """Records that say something went wrong inside: ERROR and up, or an unexpected error."""
        found = []
        for record in self.records:
            text = record.getMessage()
            unexpected = "unexpected" in text or "unhandled" in text
            if record.levelno >= logging.ERROR or unexpected:
                found.append(f"{record.levelname} {record.name}: {text}")
        return found


@dataclass
class FuzzApp:
    tmp_path: Path
    settings: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.webhook = WebhookServer()
        self.loop.run_until_complete(self.webhook.start())
        values = {**FUZZ_SETTINGS, "store_url": f"sqlite:///{self.tmp_path / 'fuzz.db'}"}
        self.app = create_app(fuzz_agent, Settings(**{**values, **self.settings}))
        self.runtime = self.app.runtime
        self.logs = LogRecorder()
        self._logger = logging.getLogger("a2a_serverless")
        self._level = self._logger.level
        self._logger.addHandler(self.logs)
        self._logger.setLevel(logging.DEBUG)
        self.requests = 0
        self.task_ids: list[str] = []
        # What the answers were (the tests print a summary).
        self.outcomes: Counter[str] = Counter()

    @property
    def webhook_url(self) -> str:
        url: str = self.webhook.url("/hook")
        return url

    def close(self) -> None:
        self._logger.removeHandler(self.logs)
        self._logger.setLevel(self._level)
        self.loop.run_until_complete(self.runtime.aclose())
        self.loop.run_until_complete(self.webhook.stop())
        self.loop.close()

    # --- requests -----------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        body: bytes = b"",
        headers: Mapping[str, str] | None = None,
        query: str = "",
    ) -> Response:
        self.requests += 1
        return self.loop.run_until_complete(
            asyncio.wait_for(self._call(method, path, body, headers or {}, query), 30)
        )

    def post_json(self, path: str, value: Any) -> Any:
        response = self.request(
            "POST", path, json.dumps(value).encode(), {"content-type": "application/json"}
        )
        assert response.status == 200, (response.status, response.body)
        return json.loads(response.body)

    async def _call(
        self, method: str, path: str, body: bytes, headers: Mapping[str, str], query: str
    ) -> Response:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": query.encode("latin-1"),
            "headers": [
                (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()
            ]
            + [(b"host", b"testserver"), (b"content-length", str(len(body)).encode())],
            "server": ("testserver", 80),
            "client": ("127.0.0.1", 50000),
        }
        sent = False
        status = 0
        response_headers: dict[str, str] = {}
        chunks: list[bytes] = []
        finished = asyncio.Event()

        async def receive() -> MutableMapping[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await finished.wait()
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                for name, value in message.get("headers", []):
                    response_headers[name.decode("latin-1").lower()] = value.decode("latin-1")
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    finished.set()

        await self.app(scope, receive, send)
        finished.set()
        return Response(status, response_headers, b"".join(chunks))

    # --- after the examples ---------------------------------------------------------------------

    def drain(self) -> None:
        queue = self.runtime.queue
        assert isinstance(queue, InProcessQueue)
        self.loop.run_until_complete(asyncio.wait_for(queue.drain(), 60))

    def assert_intact(self) -> int:
        """Check everything stored (see the module docstring); the number of tasks checked."""
        self.drain()
        checked = self.loop.run_until_complete(self._check_store())
        queue = self.runtime.queue
        assert isinstance(queue, InProcessQueue)
        assert queue.dead_letters == [], queue.dead_letters
        assert self.logs.errors() == [], "\n".join(self.logs.errors())
        return checked

    async def _check_store(self) -> int:
        store = self.runtime.store
        owners = {"anonymous"}
        checked = 0
        for owner in owners:
            after: tuple[int, str] | None = None
            while True:
                page = await store.list_tasks(TaskQuery(owner=owner, limit=100, after=after))
                for listed in page.records:
                    await self._check_task(listed.task_id)
                    checked += 1
                if not page.has_more or not page.records:
                    break
                last = page.records[-1]
                after = (last.updated_at_ms, last.task_id)
        return checked

    async def _check_task(self, task_id: str) -> None:
        store = self.runtime.store
        record = await store.get_task(task_id)
        assert record is not None, task_id
        strict_json(record.task.model_dump())
        assert Task.model_validate(record.task.model_dump()) == record.task
        events = await store.read_events(task_id)
        assert [e.seq for e in events] == list(range(1, record.last_seq + 1)), task_id
        for event in events:
            strict_json(event.payload.model_dump())
            assert event.payload.task_id == task_id
        if record.task.status.state.is_terminal:
            # A terminal task never changes again: its one terminal status event is its last.
            terminal = [
                e.seq
                for e in events
                if isinstance(e.payload, TaskStatusUpdateEvent)
                and e.payload.status.state.is_terminal
            ]
            assert terminal == [record.last_seq], (task_id, terminal, record.last_seq)
            assert events[-1].is_final, task_id
        for stored in await store.list_push_configs(task_id):
            strict_json(stored.config.model_dump())


def finish(fuzz: FuzzApp, name: str) -> None:
    """Check what the fuzzing stored, and print a summary of the answers it got."""
    checked = fuzz.assert_intact()
    answers = ", ".join(f"{k}: {v}" for k, v in sorted(fuzz.outcomes.items()))
    print(f"\n{name}: {fuzz.requests} requests ({answers}); {checked} stored tasks intact")


def strict_json(value: Any) -> bytes:
    """`value` as JSON that any parser reads back: no NaN/Infinity, valid UTF-8."""
    return json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
