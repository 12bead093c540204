"""The 1.x peer: the official a2a-sdk 1.3.0 server with the same echo agent, as its docs build one.

`DefaultRequestHandler` + `InMemoryTaskStore`, the JSON-RPC and agent-card routes in a Starlette
app; the executor publishes the task, one text artifact echoing the input, then `completed` (the
events of echo_peer.py, in 1.x's API).
"""

from __future__ import annotations

from a2a.helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Part,
)
from a2a.utils.errors import UnsupportedOperationError
from starlette.applications import Starlette


class EchoExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            assert context.message is not None
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        text = context.get_user_input()
        await updater.add_artifact([Part(text=text)], name="echo")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise UnsupportedOperationError("the echo agent cannot cancel")


def build_app() -> Starlette:
    card = AgentCard(
        name="Echo",
        description="Says back what it is told.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(
                url="http://127.0.0.1/", protocol_binding="JSONRPC", protocol_version="1.0"
            )
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(
                id="echo", name="Echo", description="Says back what it is told.", tags=["bench"]
            )
        ],
    )
    handler = DefaultRequestHandler(
        agent_executor=EchoExecutor(), task_store=InMemoryTaskStore(), agent_card=card
    )
    routes = [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")]
    return Starlette(routes=routes)
