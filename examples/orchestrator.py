"""Example orchestrator: asks two agents at once and combines their answers, durably.

Each `ctx.call` sends the question to another A2A agent; both run in parallel. If they take
longer than the inline window (A2A_DURABLE_INLINE_WAIT_S), this agent's turn suspends — no
function is held while they work — and resumes when their tasks end (docs/durable-calls.md).

Run three agents on your machine, e.g. two trip planners (the default agent) standing in for
the specialists, each on its own store file:

    A2A_STORE_URL=sqlite:///planner.db a2a-serverless dev --port 8001
    A2A_STORE_URL=sqlite:///second.db a2a-serverless dev --port 8002
    A2A_REMOTE_AGENTS='{"planner": "http://127.0.0.1:8001",
                        "second_opinion": "http://127.0.0.1:8002"}' \\
    A2A_PUBLIC_URL=http://127.0.0.1:8000 a2a-serverless dev examples.orchestrator:orchestrator

(A2A_PUBLIC_URL lets the two agents call back when they finish; without it, polls find out.)
"""

from __future__ import annotations

import asyncio

from a2a_serverless import Context, agent
from a2a_serverless.durable import CallError


@agent(
    name="Orchestrator",
    description="Asks a planner and a second opinion at once, and puts their answers together.",
)
async def orchestrator(ctx: Context) -> str:
    answers = await asyncio.gather(
        ctx.call("planner", ctx.text),
        ctx.call("second_opinion", ctx.text),
        return_exceptions=True,
    )
    sections = []
    for name, answer in zip(("Planner", "Second opinion"), answers, strict=True):
        if isinstance(answer, CallError):
            sections.append(f"## {name}\n\n(no answer: {answer})")
        elif isinstance(answer, BaseException):
            raise answer  # not a call's outcome (e.g. the turn suspending): let it through
        elif answer.input_required:
            sections.append(f"## {name}\n\nasks: {answer.text}")
        else:
            sections.append(f"## {name}\n\n{answer.text}")
    return "\n\n".join(sections)
