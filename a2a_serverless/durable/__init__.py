"""Durable operations of a turn: an agent calls another agent, sleeps or records a step, and its
turn suspends (no worker held) until the outcome arrives, then resumes by replay.

    result = await ctx.call("reviewer", "Check this draft: ...")

- `outcomes.py`: what the agent gets back (`CallResult`) and the typed errors (a leaf);
- `session.py`: one turn's operations, their replay and its suspension;
- `resume.py`: what brings a suspended turn back: the callback endpoint and the poll job.

docs/durable-calls.md is the guide, with the determinism contract.
"""

from __future__ import annotations

from .outcomes import (
    CallDeadlineExceeded,
    CallError,
    CallResult,
    DurableUnavailable,
    RemoteCanceled,
    RemoteFailed,
    RemoteRejected,
    RemoteTaskEnded,
    RemoteUnavailable,
    TurnSuspended,
    UnknownRemote,
)

__all__ = [
    "CallDeadlineExceeded",
    "CallError",
    "CallResult",
    "DurableUnavailable",
    "RemoteCanceled",
    "RemoteFailed",
    "RemoteRejected",
    "RemoteTaskEnded",
    "RemoteUnavailable",
    "TurnSuspended",
    "UnknownRemote",
]
