"""Agents the interop tests serve with `a2a-serverless dev tests.interop.agents:app`.

Never import this module from a test process: building `app` opens the store named by
A2A_STORE_URL. The dev server imports it in its own subprocess (see tests/support/server.py).

`interop_agent` answers by what the message says:

- `slow N [SECONDS]`: works for a while, streaming N artifact chunks (`chunk 0`, `chunk 1`, …)
  of one artifact, SECONDS apart (default 0.1), then completes. For cancel and resubscribe.
- `direct <text>`: answered at once with a Message `direct: <text>`, no task (the direct hook).
- anything else: one artifact `echo: <text>`, then completed.

`app` serves it with push notification configs enabled (the dev server's default runtime answers
the push-config methods with -32003 until push delivery is wired).
"""

from __future__ import annotations

import asyncio
import re

from a2a_serverless import Agent, Context, Settings, TaskUpdater, create_app, skill
from a2a_serverless.asgi import A2AApplication

SLOW = re.compile(r"slow\s+(\d+)(?:\s+(\d+(?:\.\d+)?))?")


class InteropExecutor:
    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        text = context.text.strip()
        if match := SLOW.fullmatch(text):
            await self._slow(updater, int(match[1]), float(match[2] or 0.1))
            return
        await updater.start_work()
        await updater.add_artifact(f"echo: {text}", name="echo")
        await updater.complete()

    async def _slow(self, updater: TaskUpdater, chunks: int, delay: float) -> None:
        await updater.start_work(f"Streaming {chunks} chunks")
        artifact_id: str | None = None
        for index in range(chunks):
            await asyncio.sleep(delay)
            artifact_id = await updater.add_artifact(
                f"chunk {index}\n",
                artifact_id=artifact_id,
                name="stream" if artifact_id is None else None,
                append=artifact_id is not None,
                last_chunk=index == chunks - 1,
            )
        await updater.complete()


def direct_answer(text: str) -> str | None:
    """`direct <text>` gets a Message back at once; anything else makes a task."""
    return f"direct: {text[len('direct ') :]}" if text.startswith("direct ") else None


interop_agent = Agent(
    name="Interop Agent",
    description="Echoes text; 'slow N [SECONDS]' streams N chunks slowly.",
    executor=InteropExecutor(),
    direct=direct_answer,
    skills=[skill("echo", "Echo", "Says back what it is told.", tags=["test"])],
)

app = create_app(interop_agent, Settings.from_env(dev_mode=True), push_notifications=True)


class GuardedExecutor:
    """Says which skill a message was for: `<skill id>: <text>`."""

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.add_artifact(f"{context.skill_id}: {context.text.strip()}", name="echo")
        await updater.complete()


guarded_agent = Agent(
    name="Guarded Interop Agent",
    description="Echoes for authenticated callers; the admin skill needs a scope.",
    executor=GuardedExecutor(),
    skills=[skill("echo", "Echo", "Says back what it is told.")],
    extended_skills=[
        skill(
            "admin",
            "Admin",
            "Needs the interop:admin scope.",
            security=[{"bearer": ["interop:admin"]}],
        )
    ],
)
_guarded_app: A2AApplication | None = None


def __getattr__(name: str) -> object:
    # Built on demand (once): only the server that serves it opens a store for it.
    global _guarded_app
    if name == "guarded_app":
        if _guarded_app is None:
            _guarded_app = create_app(guarded_agent, Settings.from_env(dev_mode=True))
        return _guarded_app
    raise AttributeError(name)
