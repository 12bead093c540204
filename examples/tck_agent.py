"""Example agent: the A2A conformance suite's (TCK's) scenario agent, written with our agent API.

The official A2A Technology Compatibility Kit (github.com/a2aproject/a2a-tck) drives the agent
it tests through the `messageId` of each message: a message whose id starts with
`tck-artifact-text` must be answered with a text artifact, `tck-input-required` must leave the
task waiting for input, and so on (the kit's `scenarios/*.feature`). This agent follows those
scenarios, so `scripts/tck` can serve it (`a2a-serverless dev examples.tck_agent`) and run the
kit against it; it is also a compact tour of what an executor can do with a `TaskUpdater`:
status updates, text / file / URL / data artifacts, chunked artifacts, input-required,
rejection, and a long-running streamed task; and of a direct hook, which answers
`tck-message-response` with a Message and no task.

A message id no scenario names completes the task with a message saying so.
"""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import Awaitable, Callable

from a2a_serverless import Agent, Context, TaskUpdater, skill
from a2a_serverless.models import (
    Message,
    Part,
)

# The TCK waits TCK_STREAMING_TIMEOUT seconds (2 by default) for stream events; a task it
# resubscribes to must still be running after twice that.
STREAMING_TIMEOUT_ENV = "TCK_STREAMING_TIMEOUT"
DEFAULT_STREAMING_TIMEOUT_S = 2.0

Scenario = Callable[[TaskUpdater], Awaitable[None]]


def streaming_timeout_s() -> float:
    raw = os.environ.get(STREAMING_TIMEOUT_ENV, "").strip()
    try:
        return float(raw) if raw else DEFAULT_STREAMING_TIMEOUT_S
    except ValueError:
        return DEFAULT_STREAMING_TIMEOUT_S


def _file_part() -> Part:
    content = base64.b64encode(b"tck").decode("ascii")
    return Part(raw=content, media_type="text/plain", filename="output.txt")


def _url_part() -> Part:
    return Part(
        url="https://example.com/output.txt", media_type="text/plain", filename="output.txt"
    )


def _artifact_then_complete(content: Part) -> Scenario:
    """Core scenarios: one artifact, then `completed` (no `working` first)."""

    async def run(updater: TaskUpdater) -> None:
        await updater.add_artifact(content)
        await updater.complete()

    return run


def _streamed(content: Part) -> Scenario:
    """Streaming scenarios: `working`, one artifact, `completed`."""

    async def run(updater: TaskUpdater) -> None:
        await updater.start_work()
        await updater.add_artifact(content)
        await updater.complete()

    return run


async def _complete_with_message(updater: TaskUpdater) -> None:
    await updater.complete("Hello from TCK")


async def _complete(updater: TaskUpdater) -> None:
    await updater.complete()


async def _input_required(updater: TaskUpdater) -> None:
    await updater.requires_input()


async def _reject(updater: TaskUpdater) -> None:
    await updater.reject("rejected")


async def _chunked(updater: TaskUpdater) -> None:
    await updater.start_work()
    artifact_id = await updater.add_artifact("chunk-1 ", append=True, last_chunk=False)
    await updater.add_artifact("chunk-2", artifact_id=artifact_id, append=True, last_chunk=True)
    await updater.complete()


async def _long_running(updater: TaskUpdater) -> None:
    await updater.start_work()
    await asyncio.sleep(2 * streaming_timeout_s())
    await updater.complete()


# messageId prefix -> what the agent does; the longest matching prefix wins
# ("tck-artifact-file-url" over "tck-artifact-file").
SCENARIOS: dict[str, Scenario] = {
    "tck-complete-task": _complete_with_message,
    "tck-artifact-text": _artifact_then_complete(Part(text="Generated text content")),
    "tck-artifact-file": _artifact_then_complete(_file_part()),
    "tck-artifact-file-url": _artifact_then_complete(_url_part()),
    "tck-artifact-data": _artifact_then_complete(Part(data={"key": "value", "count": 42})),
    "tck-input-required": _input_required,
    "tck-reject-task": _reject,
    "tck-stream-001": _streamed(Part(text="Stream hello from TCK")),
    "tck-stream-002": _complete,
    "tck-stream-003": _streamed(Part(text="Stream task lifecycle")),
    "tck-stream-ordering-001": _streamed(Part(text="Ordered output")),
    "tck-stream-artifact-text": _streamed(Part(text="Streamed text content")),
    "tck-stream-artifact-file": _streamed(_file_part()),
    "tck-stream-artifact-chunked": _chunked,
    "test-resubscribe-message-id": _long_running,
}


def scenario_for(message_id: str) -> Scenario | None:
    matches = [prefix for prefix in SCENARIOS if message_id.startswith(prefix)]
    return SCENARIOS[max(matches, key=len)] if matches else None


class TckExecutor:
    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        message_id = context.message.message_id
        scenario = scenario_for(message_id)
        if scenario is None:
            await updater.complete(f"Unhandled messageId prefix: {message_id}")
            return
        await scenario(updater)


DIRECT_PREFIX = "tck-message-response"


def answer_directly(message: Message) -> str | None:
    """Asked about each new message before a task is made: only the "Return message instead
    of task" scenario is answered with a Message; every other message makes a task."""
    if message.message_id.startswith(DIRECT_PREFIX):
        return "Direct message response"
    return None


tck_agent = Agent(
    name="a2a-serverless TCK agent",
    description="Follows the A2A conformance suite's (TCK's) scenarios, chosen by messageId.",
    executor=TckExecutor(),
    direct=answer_directly,
    skills=[
        skill(
            "tck",
            "TCK Conformance",
            "Handles TCK conformance test messages",
            tags=["tck"],
        )
    ],
)
