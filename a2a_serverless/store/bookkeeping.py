"""What the kit keeps with a task but never shows to clients, as typed records.

Besides its Task, a task record carries what started the current turn (`TurnInfo`), which turn
has ended (its step, `TaskRecord.turn_done`), where each push config's notifications stand
(`PushCursor`, with the `PushRetry` of the one being retried) and the notifications given up on
(`DeadLetteredNotification`). They are stored in the record's `internal` JSON object under the
keys below, the JSON every version of the kit has written; this module alone knows those keys:

    "step"             {"messageId", "turn" (if messageIds are not deduplicated), "skillId",
                        "metadata", "acceptedOutputModes", "extensions"}: TurnInfo
    "skillId"          the turn's skill once more (where earlier versions read it)
    "doneStep"         the step of the last turn that ended
    "push"             {config id: last seq delivered or dead-lettered}
    "pushFloor"        {config id: last seq before the config existed}
    "pushAttempts"     {config id: {"seq", "attempts", "nextAt", "lastError"}} of the
                       notification at the head of the line, while it is retried
    "pushDeadLetters"  the last dead letters, oldest first
    "durable"          the current turn's durable operations (`DurableTurn`: calls, sleeps,
                       steps by position; durable/session.py)

Reads parse on demand (`TaskRecord.turn`, `.turn_done`, `.push_cursor()`, `.dead_letters`,
`durable_of`), so
records written before these types existed read as they always did and a key this version does
not know is kept as it is. Writes go through the journal's `Change` (`turn`, `turn_done`,
`push`, `dead_letters`, `durable`); `stored_updates` turns them into the entries to store, only
those that change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

_STEP = "step"
_SKILL = "skillId"
_DONE = "doneStep"
_DELIVERED = "push"
_FLOORS = "pushFloor"
_RETRIES = "pushAttempts"
_LETTERS = "pushDeadLetters"
_DURABLE = "durable"
# The key of the dead letters in `internal`, for a store that looks for records having any
# (`DeadLetterScan`).
DEAD_LETTERS_KEY = _LETTERS


# Structs, not dataclasses: a turn's records are made on every message and every claim, and a
# frozen dataclass takes ten times as long to make.


class TurnInfo(msgspec.Struct, frozen=True, gc=False):
    """What started the current turn: what the worker needs to run it."""

    # The messageId of the message that began the turn.
    message_id: str
    skill_id: str | None = None
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    accepted_output_modes: list[str] | None = None
    extensions: tuple[str, ...] = ()
    # Where messageIds are not deduplicated an id may come again, even in one task: then the
    # messageId with its place in the history ("<messageId>#<n>") names the turn.
    turn: str | None = None

    @property
    def step(self) -> str:
        """The turn's name: what the worker's claim, its job and `turn_done` hold."""
        return self.turn or self.message_id

    def to_stored(self) -> dict[str, Any]:
        return {
            "messageId": self.message_id,
            **({"turn": self.turn} if self.turn is not None else {}),
            "skillId": self.skill_id,
            "metadata": self.metadata,
            "acceptedOutputModes": self.accepted_output_modes,
            "extensions": list(self.extensions),
        }

    @classmethod
    def from_stored(cls, data: Mapping[str, Any]) -> TurnInfo:
        return cls(
            message_id=str(data.get("messageId") or ""),
            skill_id=data.get("skillId"),
            metadata=data.get("metadata") or {},
            accepted_output_modes=data.get("acceptedOutputModes"),
            extensions=tuple(data.get("extensions") or ()),
            turn=data.get("turn"),
        )


class PushRetry(msgspec.Struct, frozen=True, gc=False):
    """The notification at the head of a config's line while it is being retried."""

    seq: int
    attempts: int
    # When its next attempt is due (epoch milliseconds).
    next_at_ms: int
    last_error: str | None = None

    def to_stored(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "seq": self.seq,
            "attempts": self.attempts,
            "nextAt": self.next_at_ms,
        }
        if self.last_error is not None:
            data["lastError"] = self.last_error
        return data

    @classmethod
    def from_stored(cls, data: Mapping[str, Any]) -> PushRetry:
        return cls(
            seq=int(data.get("seq", 0)),
            attempts=int(data.get("attempts", 0)),
            next_at_ms=int(data.get("nextAt", 0)),
            last_error=data.get("lastError"),
        )


class PushCursor(msgspec.Struct, frozen=True, gc=False):
    """Where one push config's notifications stand. Notifications go out in seq order."""

    # The last seq delivered or dead-lettered (0: none yet).
    delivered: int = 0
    # The task's last seq when the config was set: no notification up to it is owed.
    floor: int | None = None
    retry: PushRetry | None = None

    @property
    def lower(self) -> int:
        """Every notification up to this seq is done with (or was never owed)."""
        return max(self.delivered, self.floor or 0)

    def retry_of(self, seq: int) -> PushRetry | None:
        """The retry state of the notification of `seq`, if it is the one being retried."""
        retry = self.retry
        return retry if retry is not None and retry.seq == seq else None


NO_CURSOR = PushCursor()


class DeadLetteredNotification(msgspec.Struct, frozen=True):
    """A notification that was given up on, and why."""

    notification_id: str
    config_id: str
    seq: int
    url: str
    reason: str
    attempts: int
    at: str  # ISO 8601 UTC
    # Set by `PushNotifier.redrive`: when a redrive delivered it (ISO 8601 UTC), how many
    # redrives were tried, and the last one's error while it is not delivered.
    redriven_at: str | None = None
    redrive_attempts: int = 0
    redrive_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "notificationId": self.notification_id,
            "configId": self.config_id,
            "seq": self.seq,
            "url": self.url,
            "reason": self.reason,
            "attempts": self.attempts,
            "at": self.at,
        }
        if self.redrive_attempts:
            data["redriveAttempts"] = self.redrive_attempts
            data["redrivenAt"] = self.redriven_at
            data["redriveError"] = self.redrive_error
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DeadLetteredNotification:
        return cls(
            notification_id=data["notificationId"],
            config_id=data["configId"],
            seq=int(data["seq"]),
            url=data.get("url", ""),
            reason=data.get("reason", ""),
            attempts=int(data.get("attempts", 0)),
            at=data.get("at", ""),
            redriven_at=data.get("redrivenAt"),
            redrive_attempts=int(data.get("redriveAttempts", 0)),
            redrive_error=data.get("redriveError"),
        )


class DurableOp(msgspec.Struct, frozen=True, rename="camel", omit_defaults=True):
    """One durable operation of a turn, at its position: a call to a remote agent, a sleep or a
    step. Results are kept as JSON text, so every store keeps them as they are."""

    # "call", "sleep" or "step".
    kind: str
    # What the operation is (a call: its remote and a hash of its message): a replay that
    # brings another operation to this position diverges.
    key: str
    # "pending" (a call: sent or about to be; a sleep: not yet woken), "done" (result kept),
    # "deadline" (a call past its deadline) or "canceled" (our task ended under it).
    state: str = "pending"
    started_at_ms: int = 0
    ended_at_ms: int | None = None
    # The JSON of the result: a call's remote Task (or Message), a step's value.
    result: str | None = None
    # A call: its remote agent's URL, the remote task, the callback it waits on, its deadline.
    remote: str | None = None
    remote_task_id: str | None = None
    callback_id: str | None = None
    # The token the remote sends with the callback (kept, not hashed: a send made again after
    # a crash must be the same request, for the remote to de-duplicate it).
    callback_token: str | None = None
    deadline_at_ms: int | None = None
    # How a call's outcome arrived: "inline", "callback" or "poll".
    resumed_by: str | None = None
    # A sleep: when it ends.
    wake_at_ms: int | None = None

    @property
    def finished(self) -> bool:
        return self.state != "pending"


class DurableTurn(msgspec.Struct, frozen=True, rename="camel", omit_defaults=True):
    """The durable operations of one turn (the step it names), and whether it is suspended."""

    step: str
    # By position, as text ("0", "1", ...): positions of concurrent calls are written in any
    # order.
    ops: dict[str, DurableOp] = msgspec.field(default_factory=dict)
    # How many of the updater's writes the turn's runs have made: a replay does not repeat them.
    writes: int = 0
    # The turn waits (no worker runs it); `generation` counts suspensions, so a poll scheduled
    # for an earlier one knows it is stale.
    suspended: bool = False
    generation: int = 0
    # When the turn first ran (its deadline counts from it).
    started_at_ms: int = 0

    def op(self, position: int) -> DurableOp | None:
        return self.ops.get(str(position))

    def with_op(self, position: int, op: DurableOp) -> DurableTurn:
        return msgspec.structs.replace(self, ops={**self.ops, str(position): op})

    def pending_calls(self) -> list[tuple[int, DurableOp]]:
        return sorted(
            (int(p), op)
            for p, op in self.ops.items()
            if op.kind == "call" and not op.finished and op.remote_task_id
        )


# --- reading a record's stored entries -----------------------------------------------------------


def step_of(internal: Mapping[str, Any]) -> str | None:
    """The current turn's step, straight from the stored entry (no TurnInfo is made)."""
    info = internal.get(_STEP)
    if not isinstance(info, dict):
        return None
    step: str | None = info.get("turn") or info.get("messageId")
    return step


def turn_of(internal: Mapping[str, Any]) -> TurnInfo | None:
    info = internal.get(_STEP)
    return TurnInfo.from_stored(info) if isinstance(info, dict) else None


def turn_done_of(internal: Mapping[str, Any]) -> str | None:
    done: str | None = internal.get(_DONE)
    return done


def push_cursor_of(internal: Mapping[str, Any], config_id: str) -> PushCursor:
    delivered = internal.get(_DELIVERED, {}).get(config_id)
    floor = internal.get(_FLOORS, {}).get(config_id)
    retry = internal.get(_RETRIES, {}).get(config_id)
    if delivered is None and floor is None and retry is None:
        return NO_CURSOR
    return PushCursor(
        delivered=int(delivered or 0),
        floor=None if floor is None else int(floor),
        retry=None if retry is None else PushRetry.from_stored(retry),
    )


def push_cursors_of(internal: Mapping[str, Any]) -> dict[str, PushCursor]:
    """Every config the record keeps push bookkeeping for, with its cursor."""
    ids = dict.fromkeys(
        [*internal.get(_DELIVERED, {}), *internal.get(_FLOORS, {}), *internal.get(_RETRIES, {})]
    )
    return {config_id: push_cursor_of(internal, config_id) for config_id in ids}


def dead_letters_of(internal: Mapping[str, Any]) -> list[DeadLetteredNotification]:
    return [DeadLetteredNotification.from_dict(d) for d in internal.get(_LETTERS, [])]


def durable_of(internal: Mapping[str, Any]) -> DurableTurn | None:
    """The durable operations kept (of the turn they name: compare its `step`)."""
    data = internal.get(_DURABLE)
    if not isinstance(data, dict):
        return None
    return msgspec.convert(data, DurableTurn)


# --- writing: the entries a change stores ---------------------------------------------------------


def stored_updates(
    internal: Mapping[str, Any],
    *,
    turn: TurnInfo | None = None,
    turn_done: str | None = None,
    push: Mapping[str, PushCursor | None] | None = None,
    dead_letters: Sequence[DeadLetteredNotification] | None = None,
    durable: DurableTurn | None = None,
) -> dict[str, Any]:
    """The entries to merge into a record's stored `internal` for these typed changes.

    `push` gives configs' new cursors (None forgets a config): of its three stored maps only
    those whose content changes are written, as each write of earlier versions did.
    """
    updates: dict[str, Any] = {}
    if turn is not None:
        updates[_STEP] = turn.to_stored()
        updates[_SKILL] = turn.skill_id
    if turn_done is not None:
        updates[_DONE] = turn_done
    if push:
        updates.update(_push_updates(internal, push))
    if dead_letters is not None:
        updates[_LETTERS] = [letter.to_dict() for letter in dead_letters]
    if durable is not None:
        updates[_DURABLE] = msgspec.to_builtins(durable)
    return updates


def _push_updates(
    internal: Mapping[str, Any], push: Mapping[str, PushCursor | None]
) -> dict[str, Any]:
    updates: dict[str, Any] = {}
    for key in (_DELIVERED, _FLOORS, _RETRIES):
        current: dict[str, Any] = internal.get(key, {})
        entries = dict(current)
        for config_id, cursor in push.items():
            value = None if cursor is None else _stored_value(key, cursor)
            if value is None:
                entries.pop(config_id, None)
            else:
                entries[config_id] = value
        if entries != current:
            updates[key] = entries
    return updates


def _stored_value(key: str, cursor: PushCursor) -> Any:
    if key == _DELIVERED:
        return cursor.delivered or None
    if key == _FLOORS:
        return cursor.floor
    return None if cursor.retry is None else cursor.retry.to_stored()
