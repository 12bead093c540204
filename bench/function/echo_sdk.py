"""The echo agent written as an a2a-sdk AgentExecutor (the SDK's 0.3.x line, as its samples
write one) and run by a2a_serverless.a2a_sdk: one text artifact echoing the input, then
`completed` — the events of echo_ours.py, for the cold-start cost of the a2a-sdk bridge."""

from __future__ import annotations

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Part, TextPart

from a2a_serverless import skill
from a2a_serverless.a2a_sdk import from_a2a_sdk


class EchoExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        text = context.get_user_input()
        await updater.add_artifact([Part(root=TextPart(text=text))], name="echo")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        # An echo turn holds nothing to release, and the kit has already canceled the task
        # when it calls this: there is nothing to do.
        return None


echo = from_a2a_sdk(
    EchoExecutor(),
    name="Echo",
    description="Says back what it is told.",
    skills=[skill("echo", "Echo", "Says back what it is told.", tags=["bench"])],
)
