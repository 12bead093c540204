"""An agent served by the official a2a-sdk 0.3.26 (the one in .venv; run in a subprocess, never
imported by the tests): `python tests/client/sdk03_agent.py PORT [--push-sender]`.

JSON-RPC at `/` and HTTP+JSON under `/v1/`, both A2A 0.3, on one app; the card's `url` is the
JSON-RPC endpoint and `additionalInterfaces` lists both. The agent echoes (`echo: <text>`, one
artifact, completed); `slow N` works N x 0.2 s first (for cancel); `direct <text>` answers with
a Message. With `--push-sender` it sends push notifications (the SDK's BasePushNotificationSender).
"""

from __future__ import annotations

import asyncio
import sys
import uuid

import httpx
import uvicorn
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2ARESTFastAPIApplication, A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Message,
    Part,
    Role,
    TextPart,
)
from a2a.utils import new_task
from starlette.responses import PlainTextResponse


class EchoExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input().strip()
        if text.startswith("direct "):
            await event_queue.enqueue_event(
                Message(
                    message_id=str(uuid.uuid4()),
                    role=Role.agent,
                    parts=[Part(root=TextPart(text=f"direct: {text[7:]}"))],
                    context_id=context.context_id,
                )
            )
            return
        assert context.message is not None
        task = context.current_task or new_task(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        if text.startswith("slow "):
            for _ in range(int(text.split()[1])):
                await asyncio.sleep(0.2)
        await updater.add_artifact([Part(root=TextPart(text=f"echo: {text}"))], name="echo")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id and context.context_id
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def main() -> None:
    port = int(sys.argv[1])
    base = f"http://127.0.0.1:{port}"
    push_store = InMemoryPushNotificationConfigStore()
    sender = None
    if "--push-sender" in sys.argv:
        sender = BasePushNotificationSender(httpx.AsyncClient(), push_store)
    card = AgentCard(
        name="SDK 0.3 Echo",
        description="Echoes text (official a2a-sdk 0.3 server).",
        url=f"{base}/",
        version="1.0.0",
        preferred_transport="JSONRPC",
        additional_interfaces=[
            AgentInterface(transport="JSONRPC", url=f"{base}/"),
            AgentInterface(transport="HTTP+JSON", url=base),
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="Echo", description="Echoes.", tags=["test"])],
    )
    handler = DefaultRequestHandler(
        agent_executor=EchoExecutor(),
        task_store=InMemoryTaskStore(),
        push_config_store=push_store,
        push_sender=sender,
    )
    app = A2ARESTFastAPIApplication(agent_card=card, http_handler=handler).build()
    A2AStarletteApplication(agent_card=card, http_handler=handler).add_routes_to_app(
        app, rpc_url="/"
    )
    app.add_route("/health", lambda request: PlainTextResponse("ok"))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
