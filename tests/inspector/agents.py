"""An agent for the inspector's browser tests: a long token stream, a question to cancel.

tokens N     streams N text chunks ("t1 ", "t2 ", ...) into one artifact: N+1 events
anything     asks back (input-required, a task that is not over), echoing the message
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

from a2a_serverless import Context, InputRequired, agent
from a2a_serverless.models import Part

TOKENS = re.compile(r"^tokens (\d{1,4})$")


@agent(name="Streamer", description="Streams tokens, or asks back.")
async def streamer(ctx: Context) -> AsyncIterator[object]:
    match = TOKENS.match(ctx.text.strip())
    if match is None:
        yield InputRequired(f"You said: {ctx.text}. What next?")
        return
    for n in range(1, int(match.group(1)) + 1):
        yield Part(text=f"t{n} ")
