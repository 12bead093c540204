"""The typed bookkeeping of a task record is written in the JSON the kit has always stored:
only the entries a change touches, in their old shapes."""

from __future__ import annotations

from typing import Any

from a2a_serverless.journal import Change, Journal
from a2a_serverless.models import Task, TaskState, TaskStatus
from a2a_serverless.store.bookkeeping import (
    DeadLetteredNotification,
    PushCursor,
    PushRetry,
    TurnInfo,
    push_cursor_of,
    stored_updates,
    turn_of,
)
from a2a_serverless.store.memory import MemoryStore

STORED: dict[str, Any] = {
    "push": {"a": 3, "b": 1},
    "pushFloor": {"b": 0},
    "pushAttempts": {"a": {"seq": 5, "attempts": 1, "nextAt": 10, "lastError": "HTTP 503"}},
}


def test_a_turn_is_stored_as_the_service_always_stored_it() -> None:
    turn = TurnInfo(
        message_id="m-1",
        skill_id=None,
        metadata={},
        accepted_output_modes=None,
        extensions=("x",),
    )
    assert stored_updates({}, turn=turn) == {
        "step": {
            "messageId": "m-1",
            "skillId": None,
            "metadata": {},
            "acceptedOutputModes": None,
            "extensions": ["x"],
        },
        "skillId": None,
    }
    numbered = TurnInfo(message_id="m-1", turn="m-1#2", skill_id="s")
    stored = stored_updates({}, turn=numbered)
    assert stored["step"]["turn"] == "m-1#2" and stored["skillId"] == "s"
    assert turn_of(stored) == numbered and numbered.step == "m-1#2"


def test_moving_a_cursor_writes_only_the_cursors() -> None:
    cursor = push_cursor_of(STORED, "b")
    assert cursor == PushCursor(delivered=1, floor=0)
    moved = PushCursor(delivered=2, floor=0)
    assert stored_updates(STORED, push={"b": moved}) == {"push": {"a": 3, "b": 2}}


def test_a_finished_retry_is_dropped_with_its_cursor_move() -> None:
    cursor = push_cursor_of(STORED, "a")
    assert cursor.retry_of(5) == PushRetry(seq=5, attempts=1, next_at_ms=10, last_error="HTTP 503")
    assert cursor.retry_of(4) is None
    done = PushCursor(delivered=5)
    written = {"push": {"a": 5, "b": 1}, "pushAttempts": {}}
    assert stored_updates(STORED, push={"a": done}) == written


def test_a_retry_is_stored_with_the_keys_it_had() -> None:
    fresh = PushRetry(seq=4, attempts=0, next_at_ms=7)
    assert stored_updates({}, push={"c": PushCursor(retry=fresh)}) == {
        "pushAttempts": {"c": {"seq": 4, "attempts": 0, "nextAt": 7}}
    }


def test_forgetting_a_config_writes_only_the_maps_that_held_it() -> None:
    assert stored_updates(STORED, push={"b": None}) == {"push": {"a": 3}, "pushFloor": {}}
    assert stored_updates(STORED, push={"unknown": None}) == {}


def test_a_floor_is_written_alone() -> None:
    floored = PushCursor(floor=2)
    assert stored_updates(STORED, push={"c": floored}) == {"pushFloor": {"b": 0, "c": 2}}


def test_dead_letters_keep_their_stored_shape() -> None:
    stored = {
        "notificationId": "n",
        "configId": "a",
        "seq": 1,
        "url": "https://h.example/x",
        "reason": "HTTP 404",
        "attempts": 1,
        "at": "2026-01-01T00:00:00.000Z",
    }
    letter = DeadLetteredNotification.from_dict(stored)
    assert stored_updates({}, dead_letters=[letter]) == {"pushDeadLetters": [stored]}


async def test_the_journal_merges_typed_changes_with_what_is_stored() -> None:
    journal = Journal(MemoryStore())
    task = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.SUBMITTED))
    turn = TurnInfo(message_id="m-1", skill_id="s")
    created = await journal.create(task, owner="o", turn=turn, internal={"other": 1})
    assert created.turn == turn and created.internal["other"] == 1
    done = await journal.write("t", lambda r: Change(turn_done="m-1"))
    assert done.turn_done == "m-1" and done.turn == turn
    assert list(done.internal) == ["other", "step", "skillId", "doneStep"]
    unchanged = await journal.write("t", lambda r: Change(claim=None))
    assert unchanged.internal == done.internal
