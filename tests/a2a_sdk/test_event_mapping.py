"""How an a2a-sdk (0.3.x) executor's events land on the task, in-process (the ASGI app on a
memory store): the cases the sample executors do not reach — a Task snapshot carrying artifacts
and a state, a `submitted` status, events after the turn ended, an event for another task — and
what `from_a2a_sdk` refuses up front."""

from __future__ import annotations

from typing import Any

import pytest
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Artifact, Part, Task, TaskState, TaskStatus, TextPart
from a2a.utils import new_agent_text_message

from a2a_serverless.a2a_sdk import SdkAgentExecutor, from_a2a_sdk
from a2a_serverless.executor import CancelableExecutor
from a2a_serverless.models import TaskStatusUpdateEvent
from tests.integration.agent_fixtures import FAST, events_of, send


class Scripted(AgentExecutor):
    def __init__(self, script: Any) -> None:
        self.script = script

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await self.script(context, event_queue)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        pass


async def run(make_client: Any, script: Any) -> tuple[dict[str, Any], list[Any]]:
    agent = from_a2a_sdk(Scripted(script), name="Scripted", description="Follows a script.")
    async with make_client(agent, **FAST) as (client, app):
        task = await send(client, "go")
        return task, [e.payload for e in await events_of(app, task["id"])]


async def test_a_task_snapshot_adds_its_artifacts_and_state(make_client: Any) -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        assert context.current_task is None  # a new task, as the SDK's server has it
        text = Part(root=TextPart(text="the answer"))
        await queue.enqueue_event(
            Task(
                id=context.task_id or "",
                context_id=context.context_id or "",
                status=TaskStatus(state=TaskState.completed),
                artifacts=[Artifact(artifact_id="a-1", parts=[text])],
            )
        )

    task, events = await run(make_client, script)
    assert task["status"]["state"] == "completed"
    assert task["artifacts"][0]["artifactId"] == "a-1"
    # The artifact and the completion are one write.
    assert [type(e).__name__ for e in events] == [
        "TaskStatusUpdateEvent",
        "TaskArtifactUpdateEvent",
        "TaskStatusUpdateEvent",
    ]


async def test_submitted_is_a_no_op_and_events_after_the_turn_are_dropped(
    make_client: Any,
) -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        updater = TaskUpdater(queue, context.task_id or "", context.context_id or "")
        await updater.submit()
        await updater.requires_input(new_agent_text_message("More?"))
        await updater.add_artifact([Part(root=TextPart(text="too late"))])

    task, events = await run(make_client, script)
    assert task["status"]["state"] == "input-required"
    assert "artifacts" not in task
    states = [e.status.state.value for e in events if isinstance(e, TaskStatusUpdateEvent)]
    assert states == ["submitted", "input-required"]
    # The status message (no ids from new_agent_text_message) was tied to the task.
    assert task["status"]["message"]["taskId"] == task["id"]


async def test_output_over_the_task_bound_fails_the_task_saying_why(make_client: Any) -> None:
    # Issue 31: the bound on a task holds for an SDK executor's events too.
    async def script(context: RequestContext, queue: EventQueue) -> None:
        updater = TaskUpdater(queue, context.task_id or "", context.context_id or "")
        await updater.start_work()
        await updater.add_artifact([Part(root=TextPart(text="z" * 5000))])
        await updater.complete()

    agent = from_a2a_sdk(Scripted(script), name="Scripted", description="Follows a script.")
    async with make_client(agent, max_task_bytes=4000, **FAST) as (client, _app):
        task = await send(client, "go")
    assert task["status"]["state"] == "failed", task
    reason = task["status"]["message"]["parts"][0]["text"]
    assert "A2A_MAX_TASK_BYTES" in reason and "4000" in reason, reason
    assert "artifacts" not in task


async def test_an_event_for_another_task_fails_the_task(make_client: Any) -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        updater = TaskUpdater(queue, "someone-else", context.context_id or "")
        await updater.start_work()

    task, _ = await run(make_client, script)
    assert task["status"]["state"] == "failed"


def test_what_is_not_an_executor_is_refused() -> None:
    with pytest.raises(TypeError, match="not an a2a-sdk AgentExecutor"):
        SdkAgentExecutor(object())
    with pytest.raises(ValueError, match="cancel_poll_s"):
        from_a2a_sdk(Scripted(None), name="S", description="s", cancel_poll_s=0)


def test_the_cancel_settings_are_the_agents() -> None:
    agent = from_a2a_sdk(
        Scripted(None), name="S", description="s", cancel_poll_s=0.5, cancel_timeout_s=3
    )
    assert (agent.cancel_poll_s, agent.cancel_timeout_s) == (0.5, 3)
    # The bridge has no watch of its own: the worker's stops it, and calls its cancel.
    assert isinstance(agent.executor, CancelableExecutor)
    with pytest.warns(DeprecationWarning, match="ignored"):
        SdkAgentExecutor(Scripted(None), cancel_poll_s=1.0)


def test_the_core_does_not_import_a2a_sdk() -> None:
    import subprocess
    import sys

    code = "import sys, a2a_serverless; print('a2a' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
