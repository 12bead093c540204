"""A stream whose connection drops is resumed with `Last-Event-ID`, on each interface: the
client sends the same request again from after the last event it received, and the caller sees
every event once. Our app served by uvicorn over real HTTP, behind a wrapper that cuts the first
stream's connection after two events."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest

from a2a_serverless import Agent, Context, Settings, TaskUpdater, create_app
from a2a_serverless import models as m
from a2a_serverless.client import A2AClient, AgentUnreachable, ClientLimits


class Chunks:
    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.start_work()
        artifact_id = None
        for index in range(4):
            await asyncio.sleep(0.05)
            artifact_id = await updater.add_artifact(
                f"{index}", artifact_id=artifact_id, append=artifact_id is not None
            )
        await updater.complete()


class CutFirstStream:
    """Passes requests to `app`; the first SSE response is cut after `events` events (the
    connection drops: uvicorn aborts a response whose app fails after it started)."""

    def __init__(self, app: Any, events: int = 2) -> None:
        self.app = app
        self.events = events
        self.cut = False
        self.last_event_ids: list[str | None] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        streaming = b"text/event-stream" in headers.get(b"accept", b"")
        if streaming:
            last = headers.get(b"last-event-id")
            self.last_event_ids.append(last.decode() if last is not None else None)
        if not streaming or self.cut:
            await self.app(scope, receive, send)
            return
        self.cut = True
        sent = 0

        async def cutting(message: dict[str, Any]) -> None:
            nonlocal sent
            if message["type"] == "http.response.body":
                sent += message.get("body", b"").count(b"\ndata:") + message.get(
                    "body", b""
                ).startswith(b"data:")
                if sent > self.events:
                    raise ConnectionAbortedError("cut by the test")
            await send(message)

        await self.app(scope, receive, cutting)


@pytest.mark.parametrize(
    ("version", "binding"),
    [("1.0", "JSONRPC"), ("1.0", "HTTP+JSON"), ("0.3", "JSONRPC"), ("0.3", "HTTP+JSON")],
)
async def test_a_dropped_stream_is_resumed_after_the_last_event(
    serve_asgi: Callable[[Any], AbstractAsyncContextManager[str]], version: str, binding: str
) -> None:
    agent = Agent(name="Chunks", description="Four chunks.", executor=Chunks())
    app = create_app(agent, Settings(store_url="memory://", dev_mode=True))
    wrapper = CutFirstStream(app)
    try:
        async with serve_asgi(wrapper) as url:
            client = await A2AClient.connect(url, version=version, binding=binding)  # type: ignore[arg-type]
            events = [event async for event in client.stream("go")]
    finally:
        await app.runtime.aclose()
    assert wrapper.cut
    assert wrapper.last_event_ids[0] is None
    assert len(wrapper.last_event_ids) == 2 and wrapper.last_event_ids[1] is not None
    chunks = [
        part.text
        for event in events
        if isinstance(event, m.TaskArtifactUpdateEvent)
        for part in event.artifact.parts
        if part.text is not None
    ]
    assert chunks == ["0", "1", "2", "3"]
    assert isinstance(events[0], m.Task)
    assert sum(isinstance(event, m.Task) for event in events) == 1
    last = events[-1]
    assert isinstance(last, m.TaskStatusUpdateEvent)
    assert last.status.state is m.TaskState.COMPLETED


async def test_without_resumes_left_a_drop_is_agent_unreachable(
    serve_asgi: Callable[[Any], AbstractAsyncContextManager[str]],
) -> None:
    agent = Agent(name="Chunks", description="Four chunks.", executor=Chunks())
    app = create_app(agent, Settings(store_url="memory://", dev_mode=True))
    try:
        async with serve_asgi(CutFirstStream(app)) as url:
            client = await A2AClient.connect(url, limits=ClientLimits(stream_resumes=0))
            with pytest.raises(AgentUnreachable, match="the stream broke"):
                [event async for event in client.stream("go")]
    finally:
        await app.runtime.aclose()
