"""Ours: the echo agent — one text artifact echoing the input, then `completed` — as an executor
that makes exactly the peer's events (no `working` status first)."""

from __future__ import annotations

from a2a_serverless import Agent, Context, Settings, TaskUpdater, create_app, skill
from a2a_serverless.asgi import A2AApplication


class EchoExecutor:
    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.add_artifact(context.text, name="echo")
        await updater.complete()


echo = Agent(
    name="Echo",
    description="Says back what it is told.",
    executor=EchoExecutor(),
    skills=[skill("echo", "Echo", "Says back what it is told.", tags=["bench"])],
)


def server_app() -> A2AApplication:
    """The ASGI app uvicorn serves (throughput): the store is A2A_STORE_URL (memory://)."""
    return create_app(echo, Settings.from_env())
