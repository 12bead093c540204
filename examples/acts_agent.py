"""Example agent: the system under test of ACTS, the A2A conformance test suite, written with our
agent API.

ACTS (the A2A project's conformance specification and YAML test corpus, replacing the TCK) picks
what the agent does by the *text* of a message's first part: a message starting with
`tck-artifact-text` must be answered with a text artifact, `tck-cancel` must stay working until
canceled, and so on (its "SUT Behavior Contract", §11.2 of the ACTS specification). This agent
implements that table, so `scripts/acts` can serve it (`a2a-serverless dev examples.acts_agent`)
for the official runner. A continuation of a task (a message carrying its `taskId`) is handled by
the behaviour of the message that started the task: `tck-multi-turn` asks for input until told
`done`.

ACTS runs each agent twice: with every optional capability on, and with every one off, so that
its tests of refusals (`streaming: false`, `pushNotifications: false`) can run. `CAPABILITIES_OFF`
is the second pass's switch: the settings that turn streaming and push notifications off (the
extended card is off unless authentication is configured). A text no behaviour names completes
the task with a message saying so.
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

# The environment of the second pass: every optional capability off (spec 1.0 §3.3.4's
# refusals then apply: streaming methods -32004, push config methods -32003).
CAPABILITIES_OFF = {"A2A_STREAMING": "false", "A2A_PUSH_NOTIFICATIONS": "false"}

# How long `tck-long-running` works before it completes (the contract's example: 5000 ms), and
# how long `tck-cancel` waits for its cancel before it gives up and fails.
LONG_RUNNING_ENV = "ACTS_LONG_RUNNING_S"
CANCEL_WAIT_ENV = "ACTS_CANCEL_WAIT_S"

Behaviour = Callable[[Context, TaskUpdater], Awaitable[None]]


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        return default
    return value if value >= 0 else default


async def _complete_task(context: Context, updater: TaskUpdater) -> None:
    await updater.complete("Task completed")


async def _input_required(context: Context, updater: TaskUpdater) -> None:
    await updater.requires_input("More input is required")


async def _auth_required(context: Context, updater: TaskUpdater) -> None:
    await updater.requires_auth("Authentication is required to go on")


async def _reject(context: Context, updater: TaskUpdater) -> None:
    await updater.reject("The task was rejected")


async def _failure(context: Context, updater: TaskUpdater) -> None:
    await updater.failed("The task failed")


def _artifact(part: Part) -> Behaviour:
    async def run(context: Context, updater: TaskUpdater) -> None:
        await updater.add_artifact(part)
        await updater.complete()

    return run


async def _long_running(context: Context, updater: TaskUpdater) -> None:
    await updater.start_work("Working")
    # Ends early if the task is canceled meanwhile: the executor then stops, as a real one would.
    try:
        async with asyncio.timeout(_seconds(LONG_RUNNING_ENV, 5.0)):
            await updater.wait_ended(poll_s=0.25)
            return
    except TimeoutError:
        pass
    await updater.add_artifact(Part(text="Long-running work done"))
    await updater.complete()


async def _until_canceled(context: Context, updater: TaskUpdater) -> None:
    await updater.start_work("Working until canceled")
    try:
        async with asyncio.timeout(_seconds(CANCEL_WAIT_ENV, 300.0)):
            await updater.wait_ended(poll_s=0.25)
            return
    except TimeoutError:
        await updater.failed("No cancel arrived")


async def _multi_turn(context: Context, updater: TaskUpdater) -> None:
    if context.is_continuation and context.text.strip().lower() == "done":
        await updater.complete("Conversation complete")
        return
    await updater.requires_input("Tell me more, or say 'done'")


async def _stream_basic(context: Context, updater: TaskUpdater) -> None:
    await updater.start_work()
    await updater.add_artifact(Part(text="Streamed content"))
    await updater.complete()


async def _stream_chunked(context: Context, updater: TaskUpdater) -> None:
    await updater.start_work()
    artifact_id = await updater.add_artifact("chunk-1 ", append=True, last_chunk=False)
    await updater.add_artifact("chunk-2 ", artifact_id=artifact_id, append=True, last_chunk=False)
    await updater.add_artifact("chunk-3", artifact_id=artifact_id, append=True, last_chunk=True)
    await updater.complete()


def _file_part() -> Part:
    content = base64.b64encode(b"ACTS file content").decode("ascii")
    return Part(raw=content, media_type="text/plain", filename="output.txt")


def _url_part() -> Part:
    return Part(
        url="https://example.com/output.txt", media_type="text/plain", filename="output.txt"
    )


MESSAGE_RESPONSE = "tck-message-response"

# First-part text prefix -> what the agent does; the longest matching prefix wins
# ("tck-artifact-file-url" over "tck-artifact-file"). `tck-message-response` is answered
# directly (`answer_directly`), with a Message and no task.
BEHAVIOURS: dict[str, Behaviour] = {
    "tck-complete-task": _complete_task,
    "tck-input-required": _input_required,
    "tck-auth-required": _auth_required,
    "tck-reject-task": _reject,
    "tck-artifact-text": _artifact(Part(text="Generated text content")),
    "tck-artifact-file": _artifact(_file_part()),
    "tck-artifact-file-url": _artifact(_url_part()),
    "tck-artifact-data": _artifact(Part(data={"key": "value", "count": 42})),
    "tck-long-running": _long_running,
    "tck-multi-turn": _multi_turn,
    "tck-cancel": _until_canceled,
    "tck-stream-basic": _stream_basic,
    "tck-stream-chunked": _stream_chunked,
    "tck-task-failure": _failure,
}


def behaviour_for(text: str) -> Behaviour | None:
    matches = [prefix for prefix in BEHAVIOURS if text.startswith(prefix)]
    return BEHAVIOURS[max(matches, key=len)] if matches else None


def _first_text(parts: list[Part]) -> str:
    first = parts[0] if parts else None
    return first.text if first is not None and first.text is not None else ""


class ActsExecutor:
    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        # A continuation goes on as the task began: its first message chose the behaviour.
        history = context.history
        opening = history[0] if history else context.message
        text = _first_text(list(opening.parts))
        behaviour = behaviour_for(text)
        if behaviour is None:
            await updater.complete(f"No ACTS behaviour for: {text[:80]!r}")
            return
        await behaviour(context, updater)


async def answer_directly(message: Message) -> str | None:
    """Asked about each new message before a task is made: `tck-message-response` is answered
    with a Message; every other message makes a task."""
    if _first_text(list(message.parts)).startswith(MESSAGE_RESPONSE):
        return "Direct message response"
    return None


acts_agent = Agent(
    name="a2a-serverless ACTS agent",
    description="Follows the ACTS behaviour contract, chosen by the first part's text prefix.",
    executor=ActsExecutor(),
    direct=answer_directly,
    skills=[
        skill(
            "acts",
            "ACTS conformance",
            "Behaves as the ACTS behaviour contract's message prefixes say",
            tags=["acts", "conformance"],
        )
    ],
)
