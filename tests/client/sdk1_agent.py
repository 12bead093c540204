"""An agent served by the official a2a-sdk 1.x (run with .venv-a2a-sdk1's Python, never imported
by the tests): `python tests/client/sdk1_agent.py PORT`.

JSON-RPC at `/` and HTTP+JSON at the root, both A2A 1.0 and (the SDK's compatibility layer)
0.3; the card lists all four; push notifications are sent (to any URL: the tests' receivers
are on loopback). The agent echoes (`echo: <text>`, one artifact, completed);
`slow N` works N x 0.2 s first (for cancel); `direct <text>` answers with a Message.
"""

from __future__ import annotations

import asyncio
import sys

import httpx
import uvicorn
from a2a.helpers.proto_helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
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
)
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route


class EchoExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input().strip()
        if text.startswith("direct "):
            await event_queue.enqueue_event(
                Message(
                    message_id="direct-" + (context.task_id or "x"),
                    role=Role.ROLE_AGENT,
                    parts=[Part(text=f"direct: {text[7:]}")],
                    context_id=context.context_id or "",
                )
            )
            return
        task = context.current_task or new_task_from_user_message(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        if text.startswith("slow "):
            for _ in range(int(text.split()[1])):
                await asyncio.sleep(0.2)
        await updater.add_artifact([Part(text=f"echo: {text}")], name="echo")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id and context.context_id
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def main() -> None:
    port = int(sys.argv[1])
    base = f"http://127.0.0.1:{port}"
    card = AgentCard(
        name="SDK 1.x Echo",
        description="Echoes text (official a2a-sdk 1.x server).",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=f"{base}/", protocol_binding="JSONRPC", protocol_version="1.0"),
            AgentInterface(url=base, protocol_binding="HTTP+JSON", protocol_version="1.0"),
            AgentInterface(url=f"{base}/", protocol_binding="JSONRPC", protocol_version="0.3"),
            AgentInterface(url=base, protocol_binding="HTTP+JSON", protocol_version="0.3"),
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="Echo", description="Echoes.", tags=["test"])],
    )
    push_store = InMemoryPushNotificationConfigStore()

    async def any_url(url: str) -> bool:
        return True  # the test's receiver is on loopback

    handler = DefaultRequestHandler(
        agent_executor=EchoExecutor(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=push_store,
        push_sender=BasePushNotificationSender(
            httpx.AsyncClient(), push_store, push_url_validator=any_url
        ),
    )
    routes = [
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, "/", enable_v0_3_compat=True),
        *create_rest_routes(handler, enable_v0_3_compat=True),
    ]
    routes.append(Route("/health", lambda request: PlainTextResponse("ok")))
    app = Starlette(routes=routes)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
