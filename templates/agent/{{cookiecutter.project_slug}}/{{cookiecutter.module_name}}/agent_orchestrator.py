"""The agent: asks two other A2A agents at once and puts their answers together.

    A2A_REMOTE_AGENTS='{"planner": "http://127.0.0.1:8001", "second_opinion": "http://127.0.0.1:8002"}' \
    A2A_PUBLIC_URL=http://127.0.0.1:8000 a2a-serverless dev {{ cookiecutter.module_name }}.agent:orchestrator

Each `ctx.call` sends the message to a remote agent named in A2A_REMOTE_AGENTS (a JSON object of
names and URLs, or objects with a `url` and credentials); both calls run in parallel. A call
that takes longer than the inline window (A2A_DURABLE_INLINE_WAIT_S, 5 s) suspends the turn: no
function is held while the remote agents work, and the turn resumes when their tasks end (their
push notifications to this agent's callback route under A2A_PUBLIC_URL, else polls). The turn
is then run again from its start, each finished call answering at once from its record: keep
what the function does around its calls deterministic (`ctx.step` records anything else).
"""

from __future__ import annotations

import asyncio

from a2a_serverless import Context, InputRequired, agent, skill
from a2a_serverless.durable import CallError

# The remote agents asked, by their names in A2A_REMOTE_AGENTS, with their answers' headings.
REMOTES = {"planner": "Planner", "second_opinion": "Second opinion"}


@agent(
    name={{ cookiecutter.agent_name | tojson }},
    description={{ cookiecutter.description | tojson }},
    skills=[
        skill(
            "orchestrate",
            "Orchestrate",
            "Asks two agents at once and puts their answers together.",
            examples=["Plan three days in Lisbon"],
        )
    ],
)
async def orchestrator(ctx: Context) -> str:
    text = ctx.text.strip()
    if not text:
        raise InputRequired("What should I ask them?")
    answers = await asyncio.gather(
        *(ctx.call(name, text) for name in REMOTES), return_exceptions=True
    )
    sections = []
    for heading, answer in zip(REMOTES.values(), answers, strict=True):
        if isinstance(answer, CallError):
            # One agent failing (or not answering in time) still gives the other's answer.
            sections.append(f"## {heading}\n\n(no answer: {answer})")
        elif isinstance(answer, BaseException):
            raise answer  # not a call's outcome (the turn suspending, a name not configured)
        elif answer.input_required:
            sections.append(f"## {heading}\n\nasks: {answer.text}")
        else:
            sections.append(f"## {heading}\n\n{answer.text}")
    return "\n\n".join(sections)
