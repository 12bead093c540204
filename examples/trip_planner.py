"""Example agent: a trip planner that asks what it needs, then streams a plan.

Shows the two things a serverless A2A agent must get right:
- multi-turn: when the destination or the number of days is missing it asks for it
  (`input-required`) and continues the *same task* when the client answers;
- streaming: it reports progress and streams the plan as artifact chunks, one day at a time.

Run it with `a2a-serverless dev` (this is the default agent) and talk to it with any A2A client.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

from a2a_serverless import Context, InputRequired, agent, progress, skill
from a2a_serverless.models import Part

PLACE = re.compile(r"\b(?:to|in|visit)\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")
DAYS = re.compile(r"\b(\d{1,2})\b")
IDEAS = [
    "the old town on foot",
    "the main museum",
    "a food market",
    "a day trip nearby",
    "the best viewpoint at sunset",
    "a local cooking class",
    "a slow morning and a park",
]


@agent(
    name="Trip Planner",
    description="Plans a short trip day by day. Asks for the destination and length if missing.",
    skills=[
        skill(
            "plan-trip",
            "Plan a trip",
            "A day-by-day plan for a city break.",
            tags=["travel", "planning"],
            examples=["Plan 3 days in Lisbon", "I want to go to Kyoto"],
        )
    ],
)
async def trip_planner(ctx: Context) -> AsyncIterator[object]:
    destination, days = _read_request(ctx)
    if destination is None:
        yield InputRequired("Where would you like to go?")
        return
    if days is None:
        yield InputRequired(f"{destination} it is! How many days will you stay?")
        return
    yield progress(f"Planning {days} days in {destination}…")
    for day in range(1, days + 1):
        await asyncio.sleep(0.2)  # stands in for real work: an LLM call, a search
        yield Part(text=f"Day {day}: {IDEAS[(day - 1) % len(IDEAS)]} in {destination}.\n")


def _read_request(ctx: Context) -> tuple[str | None, int | None]:
    """Destination and days from everything the user said in this task so far."""
    destination: str | None = None
    days: int | None = None
    asked = ""
    for message in ctx.history:
        text = " ".join(p.text for p in message.parts if p.text is not None).strip()
        if message.role == "agent":
            asked = text
            continue
        if match := PLACE.search(text):
            destination = match.group(1)
        elif asked.startswith("Where") and text:
            destination = text.strip(" .!?").title()
        if match := DAYS.search(text):
            days = max(1, min(int(match.group(1)), 14))
    return destination, days
