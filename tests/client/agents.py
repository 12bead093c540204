"""An agent the client's tests serve with `a2a-serverless dev tests.client.agents:app`, configured
by the environment as a deployment is (A2A_STREAMING, A2A_PUSH_NOTIFICATIONS, A2A_AUTH_*).

Never import this module from a test process: building `app` opens the store A2A_STORE_URL
names. It answers `echo: <text>` (one artifact, completed); `slow N` works N x 0.1 s first.
"""

from __future__ import annotations

import asyncio

from a2a_serverless import Agent, Context, Settings, TaskUpdater, create_app, skill


class EchoExecutor:
    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        text = context.text.strip()
        await updater.start_work()
        if text.startswith("slow "):
            for _ in range(int(text.split()[1])):
                await asyncio.sleep(0.1)
        await updater.add_artifact(f"echo: {text}", name="echo")
        await updater.complete()


agent = Agent(
    name="Client Test Agent",
    description="Echoes text; 'slow N' takes N tenths of a second.",
    executor=EchoExecutor(),
    skills=[skill("echo", "Echo", "Says back what it is told.", tags=["test"])],
)
app = create_app(agent, Settings.from_env(dev_mode=True))
