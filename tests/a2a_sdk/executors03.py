"""a2a-sdk 0.3.x AgentExecutors written the way the SDK's own samples write them (helloworld,
the LangGraph currency agent's multi-turn flow, a streaming writer, a long task that is
canceled, ADK's sessions). executors1.py has the same five for a2a-sdk 1.x; `sdk_agents.py`
picks the line that is installed.

`SampleExecutor` runs one of them per task, picked by the first word of the task's first
message (`echo ...`, `trip ...`, `story ...`, `slow ...`, `session ...`), so one deployment
serves all five. The slow one and every `cancel()` append what happened to the file
$SDK_TEST_LOG names (when set): the tests read it to see a canceled `execute` stop and
`cancel()` be called.
"""

from __future__ import annotations

import asyncio
import os

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Part, TaskState, TextPart
from a2a.utils import new_agent_text_message, new_task


def note(line: str) -> None:
    path = os.environ.get("SDK_TEST_LOG")
    if path:
        with open(path, "a") as log:
            log.write(line + "\n")


class EchoExecutor(AgentExecutor):
    """helloworld: one Message, no task of its own. "echo boom" raises."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        if text == "echo boom":
            raise RuntimeError("the echo agent broke")
        await event_queue.enqueue_event(new_agent_text_message(f"echo: {text}"))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        note(f"cancel {context.task_id} echo")
        raise Exception("cancel not supported")


class TripExecutor(AgentExecutor):
    """Multi-turn: asks where to (input-required), then answers with an artifact."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if not task:
            task = new_task(context.message)  # type: ignore[arg-type]
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        if len(task.history or []) < 2:
            await updater.update_status(
                TaskState.input_required,
                new_agent_text_message("Where to?", task.context_id, task.id),
                final=True,
            )
            return
        await updater.update_status(
            TaskState.working, new_agent_text_message("Planning…", task.context_id, task.id)
        )
        city = context.get_user_input()
        await updater.add_artifact([Part(root=TextPart(text=f"3 days in {city}"))], name="plan")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        note(f"cancel {context.task_id} trip")


class StoryExecutor(AgentExecutor):
    """Streams one artifact in three chunks."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task or new_task(context.message)  # type: ignore[arg-type]
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work(new_agent_text_message("Writing…", task.context_id, task.id))
        chunks = ["Once ", "upon ", "a time."]
        for i, chunk in enumerate(chunks):
            await updater.add_artifact(
                [Part(root=TextPart(text=chunk))],
                artifact_id="story",
                name="story",
                append=i > 0,
                last_chunk=i == len(chunks) - 1,
            )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        note(f"cancel {context.task_id} story")


class SlowExecutor(AgentExecutor):
    """A long task: works, then waits a minute; canceled before it ends."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task or new_task(context.message)  # type: ignore[arg-type]
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work(new_agent_text_message("Working…", task.context_id, task.id))
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            note(f"execute-cancelled {task.id}")
            raise
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        state = context.current_task.status.state.value if context.current_task else "none"
        note(f"cancel {context.task_id} slow {state}")
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        await updater.cancel()


class SessionExecutor(AgentExecutor):
    """ADK's `to_a2a` way of keeping sessions: per user and context, the user being the call
    context's (`user_name`, else one made up from the context). Answers with who it ran for,
    whether the SDK says they are authenticated and what that session saw before."""

    sessions: dict[tuple[str, str], list[str]] = {}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        context_id = context.context_id or ""
        user = context.call_context.user if context.call_context else None
        user_id = (user.user_name if user else "") or f"A2A_USER_{context_id}"
        seen = self.sessions.setdefault((user_id, context_id), [])
        answer = f"user={user_id} authenticated={bool(user and user.is_authenticated)}"
        await event_queue.enqueue_event(new_agent_text_message(f"{answer} seen={'|'.join(seen)}"))
        seen.append(context.get_user_input())

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise Exception("cancel not supported")


class SampleExecutor(AgentExecutor):
    """One of the samples per task, by the first word of the task's first message."""

    samples: dict[str, AgentExecutor] = {
        "echo": EchoExecutor(),
        "trip": TripExecutor(),
        "story": StoryExecutor(),
        "slow": SlowExecutor(),
        "session": SessionExecutor(),
    }

    def _pick(self, context: RequestContext) -> AgentExecutor:
        task = context.current_task
        first = task.history[0] if task and task.history else context.message
        text = "".join(p.root.text for p in first.parts if isinstance(p.root, TextPart))  # type: ignore[union-attr]
        return self.samples.get(text.split(" ")[0], self.samples["echo"])

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await self._pick(context).execute(context, event_queue)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await self._pick(context).cancel(context, event_queue)
