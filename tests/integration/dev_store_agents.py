"""Two agents for tests/integration/test_dev_store_agents.py: each says who ran its turn; the
Keeper's turn waits until the file named by A2A_TEST_GATE exists (so it can be killed mid-turn)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from a2a_serverless import agent


@agent(name="Keeper", description="Holds its turn until the gate opens.")
async def keeper(text: str) -> str:
    gate = Path(os.environ["A2A_TEST_GATE"])
    # The gate is opened by another process (the test): there is no event to wait on.
    while not await asyncio.to_thread(gate.exists):  # noqa: ASYNC110
        await asyncio.sleep(0.05)
    return f"Keeper ran: {text}"


@agent(name="Other", description="Another agent in the same folder.")
def other(text: str) -> str:
    return f"Other ran: {text}"
