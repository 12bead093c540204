"""What a person sees of a turn's durable operations: `tasks show` (ops.py) and the inspector's
calls (inspector/). Never a call's callback id or token (the secrets of its callback URL), nor a
result: each operation's position, kind, state, key, remote and remote task, timings and what
resumed it."""

from __future__ import annotations

from typing import Any

import msgspec

from ..store.base import TaskRecord
from ..store.bookkeeping import durable_of

_HIDDEN = ("callbackId", "callbackToken", "result")


def durable_summary(record: TaskRecord) -> dict[str, Any] | None:
    """The current turn's durable operations as JSON, None when it has none."""
    turn = durable_of(record.internal)
    if turn is None:
        return None
    operations = []
    for position, op in sorted((int(p), op) for p, op in turn.ops.items()):
        shown = msgspec.to_builtins(op)
        for name in _HIDDEN:
            shown.pop(name, None)
        operations.append({"position": position, **shown})
    return {
        "turn": turn.step,
        # Waiting now: suspended, and neither running again nor over.
        "suspended": turn.suspended
        and record.claim is None
        and record.turn_done != turn.step
        and not record.task.status.state.is_terminal,
        "suspensions": turn.generation,
        "replayedWrites": turn.writes,
        "operations": operations,
    }
