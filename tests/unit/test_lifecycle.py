"""The task state machine and how events change a Task (`lifecycle.py`): pure functions."""

from __future__ import annotations

import itertools
import re

import pytest

from a2a_serverless.agent import agent_message
from a2a_serverless.lifecycle import (
    ALLOWED_TRANSITIONS,
    CANCELABLE_STATES,
    InvalidTransition,
    add_to_history,
    apply_artifact,
    apply_event,
    apply_status,
    check_transition,
    now_iso,
    status_event,
    task_view,
)
from a2a_serverless.models import (
    TERMINAL_STATES,
    Artifact,
    Message,
    Part,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
)

S = TaskState
ALL_STATES = list(TaskState)
TERMINAL = [S.COMPLETED, S.FAILED, S.CANCELED, S.REJECTED]
NON_TERMINAL = [s for s in ALL_STATES if s not in TERMINAL]


def make_task(state: TaskState = S.SUBMITTED, **fields: object) -> Task:
    return Task(id="t1", context_id="c1", status=TaskStatus(state=state), **fields)  # type: ignore[arg-type]


def user(text: str, message_id: str) -> Message:
    return Message(role="user", message_id=message_id, parts=[Part(text=text)])


def artifact_event(
    artifact_id: str,
    *texts: str,
    append: bool | None = None,
    last_chunk: bool | None = None,
    name: str | None = None,
) -> TaskArtifactUpdateEvent:
    return TaskArtifactUpdateEvent(
        task_id="t1",
        context_id="c1",
        artifact=Artifact(artifact_id=artifact_id, name=name, parts=[Part(text=t) for t in texts]),
        append=append,
        last_chunk=last_chunk,
    )


# --- transitions ----------------------------------------------------------------------------------


def test_every_state_has_rules() -> None:
    assert set(ALLOWED_TRANSITIONS) == set(ALL_STATES)
    assert set(TERMINAL) == set(TERMINAL_STATES)


@pytest.mark.parametrize(("old", "new"), list(itertools.product(TERMINAL, ALL_STATES)))
def test_terminal_states_never_change(old: TaskState, new: TaskState) -> None:
    assert ALLOWED_TRANSITIONS[old] == frozenset()
    with pytest.raises(InvalidTransition) as raised:
        check_transition(old, new)
    assert raised.value.old == old and raised.value.new == new
    assert old.value in str(raised.value) and new.value in str(raised.value)
    with pytest.raises(InvalidTransition):
        apply_status(make_task(old), status_event(make_task(old), new))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (S.SUBMITTED, S.WORKING),
        (S.SUBMITTED, S.COMPLETED),
        (S.SUBMITTED, S.CANCELED),
        (S.SUBMITTED, S.REJECTED),
        (S.SUBMITTED, S.INPUT_REQUIRED),
        (S.WORKING, S.WORKING),
        (S.WORKING, S.COMPLETED),
        (S.WORKING, S.FAILED),
        (S.WORKING, S.CANCELED),
        (S.WORKING, S.REJECTED),
        (S.WORKING, S.INPUT_REQUIRED),
        (S.WORKING, S.AUTH_REQUIRED),
        # An interrupted task resumes when the client answers, or is canceled.
        (S.INPUT_REQUIRED, S.SUBMITTED),
        (S.INPUT_REQUIRED, S.WORKING),
        (S.INPUT_REQUIRED, S.CANCELED),
        (S.AUTH_REQUIRED, S.SUBMITTED),
        (S.AUTH_REQUIRED, S.WORKING),
        (S.AUTH_REQUIRED, S.CANCELED),
    ],
)
def test_allowed_transitions(old: TaskState, new: TaskState) -> None:
    check_transition(old, new)
    task = apply_status(make_task(old), status_event(make_task(old), new))
    assert task.status.state == new


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (S.WORKING, S.SUBMITTED),
        (S.WORKING, S.UNKNOWN),
        (S.SUBMITTED, S.UNKNOWN),
    ],
)
def test_forbidden_transitions(old: TaskState, new: TaskState) -> None:
    with pytest.raises(InvalidTransition):
        check_transition(old, new)


def test_every_non_terminal_state_can_be_canceled_and_failed() -> None:
    assert set(CANCELABLE_STATES) == set(NON_TERMINAL)
    for state in NON_TERMINAL:
        check_transition(state, S.CANCELED)
        check_transition(state, S.FAILED)


# --- status events --------------------------------------------------------------------------------


@pytest.mark.parametrize("state", ALL_STATES)
def test_status_event(state: TaskState) -> None:
    task = make_task(S.WORKING)
    message = agent_message("note", task=task)
    event = status_event(task, state, message)
    assert (event.task_id, event.context_id) == ("t1", "c1")
    assert event.status.state == state
    assert event.status.message == message
    assert event.status.timestamp is not None
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", event.status.timestamp)


@pytest.mark.parametrize("state", ALL_STATES)
def test_a_state_ends_the_stream_when_terminal_or_interrupted(state: TaskState) -> None:
    expected = state.is_terminal or state in (S.INPUT_REQUIRED, S.AUTH_REQUIRED)
    assert state.ends_stream is expected


def test_now_iso_is_utc_with_milliseconds() -> None:
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", now_iso())


@pytest.mark.parametrize(
    "stamp_ns",
    [
        0,
        1_764_290_000_000_000_000,  # a whole second
        1_764_290_000_999_999_999,  # its last nanosecond: the milliseconds are cut, not rounded
        1_764_290_001_000_000_000,  # the next second, after the one before was formatted
        1_764_290_001_007_500_000,
        951_782_400_123_000_000,  # 29 February 2000
    ],
)
def test_now_iso_is_what_datetime_writes(stamp_ns: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import UTC, datetime

    expected = (
        datetime.fromtimestamp(stamp_ns // 1000 / 1_000_000, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )
    monkeypatch.setattr("a2a_serverless.lifecycle.time.time_ns", lambda: stamp_ns)
    assert now_iso() == expected
    assert now_iso() == expected  # the second's text kept from the call before


def test_apply_status_adds_the_status_message_to_history() -> None:
    first = user("hi", "u1")
    task = make_task(S.SUBMITTED, history=[first])
    message = agent_message("working on it", task=task)
    working = apply_status(task, status_event(task, S.WORKING, message))
    assert working.status.state == S.WORKING
    assert working.status.message == message
    assert working.history == [first, message]
    # The input task is not changed.
    assert task.history == [first]
    assert task.status.state == S.SUBMITTED


def test_apply_status_without_message_leaves_history_alone() -> None:
    first = user("hi", "u1")
    task = make_task(S.SUBMITTED, history=[first])
    working = apply_status(task, status_event(task, S.WORKING))
    assert working.history == [first]
    assert working.status.message is None
    empty = apply_status(make_task(), status_event(make_task(), S.WORKING))
    assert empty.history is None
    assert "history" not in empty.model_dump()


def test_apply_status_keeps_artifacts() -> None:
    task = apply_artifact(make_task(S.WORKING), artifact_event("a", "x"))
    done = apply_status(task, status_event(task, S.COMPLETED))
    assert done.artifacts == task.artifacts


# --- artifacts ------------------------------------------------------------------------------------


def test_apply_artifact_adds_a_new_artifact() -> None:
    task = make_task(S.WORKING)
    one = apply_artifact(task, artifact_event("a", "x"))
    two = apply_artifact(one, artifact_event("b", "y"))
    assert [a.artifact_id for a in two.artifacts or []] == ["a", "b"]
    assert task.artifacts is None
    assert [a.artifact_id for a in one.artifacts or []] == ["a"]


def test_apply_artifact_replaces_an_artifact_with_the_same_id() -> None:
    task = make_task(S.WORKING)
    task = apply_artifact(task, artifact_event("a", "draft", name="doc"))
    task = apply_artifact(task, artifact_event("b", "other"))
    task = apply_artifact(task, artifact_event("a", "final"))
    assert [a.artifact_id for a in task.artifacts or []] == ["a", "b"]
    replaced = (task.artifacts or [])[0]
    assert replaced.parts == [Part(text="final")]
    assert replaced.name is None  # replaced whole, not merged


def test_apply_artifact_appends_chunks() -> None:
    task = make_task(S.WORKING)
    task = apply_artifact(task, artifact_event("a", "one", name="stream", last_chunk=False))
    task = apply_artifact(task, artifact_event("a", "two", append=True, last_chunk=False))
    task = apply_artifact(task, artifact_event("a", "three", "four", append=True))
    task = apply_artifact(task, artifact_event("a", append=True, last_chunk=True))
    [artifact] = task.artifacts or []
    assert artifact.parts == [Part(text=t) for t in ("one", "two", "three", "four")]
    # A chunk without a name keeps the artifact's name; a chunk with one changes it.
    assert artifact.name == "stream"
    renamed = apply_artifact(task, artifact_event("a", "five", append=True, name="renamed"))
    assert (renamed.artifacts or [])[0].name == "renamed"


def test_apply_artifact_append_to_an_unknown_artifact_adds_it() -> None:
    task = apply_artifact(make_task(S.WORKING), artifact_event("new", "x", append=True))
    assert [a.artifact_id for a in task.artifacts or []] == ["new"]


def test_appending_does_not_touch_other_artifacts() -> None:
    task = make_task(S.WORKING)
    task = apply_artifact(task, artifact_event("a", "1"))
    task = apply_artifact(task, artifact_event("b", "x"))
    task = apply_artifact(task, artifact_event("a", "2", append=True))
    a, b = task.artifacts or []
    assert a.parts == [Part(text="1"), Part(text="2")]
    assert b.parts == [Part(text="x")]


@pytest.mark.parametrize("state", TERMINAL)
def test_no_artifact_lands_on_a_terminal_task(state: TaskState) -> None:
    with pytest.raises(InvalidTransition):
        apply_artifact(make_task(state), artifact_event("a", "late"))


def test_apply_event_dispatches() -> None:
    task = make_task(S.SUBMITTED)
    task = apply_event(task, status_event(task, S.WORKING))
    task = apply_event(task, artifact_event("a", "x"))
    task = apply_event(task, status_event(task, S.COMPLETED))
    assert task.status.state == S.COMPLETED
    assert [a.artifact_id for a in task.artifacts or []] == ["a"]


def test_add_to_history() -> None:
    first, second = user("a", "u1"), user("b", "u2")
    task = add_to_history(make_task(), first)
    task = add_to_history(task, second)
    assert task.history == [first, second]


# --- task_view ------------------------------------------------------------------------------------


def viewed_task() -> Task:
    history = [user(str(n), f"m{n}") for n in range(5)]
    artifact = Artifact(artifact_id="a", parts=[Part(data={"x": 1})])
    return make_task(S.COMPLETED, history=history, artifacts=[artifact])


def test_task_view_defaults_show_everything() -> None:
    task = viewed_task()
    assert task_view(task) == task
    assert task_view(task, history_length=None, include_artifacts=None) == task


@pytest.mark.parametrize(("length", "kept"), [(1, ["m4"]), (3, ["m2", "m3", "m4"]), (99, None)])
def test_task_view_history_length_keeps_the_last_messages(
    length: int, kept: list[str] | None
) -> None:
    task = viewed_task()
    view = task_view(task, history_length=length)
    ids = [m.message_id for m in view.history or []]
    assert ids == (kept if kept is not None else [f"m{n}" for n in range(5)])
    assert view.artifacts == task.artifacts
    assert len(task.history or []) == 5  # the task itself is unchanged


def test_task_view_history_length_zero_leaves_the_field_out() -> None:
    view = task_view(viewed_task(), history_length=0)
    assert view.history is None
    assert "history" not in view.model_dump()


def test_task_view_history_length_without_history() -> None:
    view = task_view(make_task(), history_length=2)
    assert view.history is None


def test_task_view_include_artifacts() -> None:
    task = viewed_task()
    hidden = task_view(task, include_artifacts=False)
    assert hidden.artifacts is None
    assert "artifacts" not in hidden.model_dump()
    shown = task_view(task, include_artifacts=True)
    assert shown.artifacts == task.artifacts
    none_yet = task_view(make_task(), include_artifacts=True)
    assert none_yet.artifacts == []
    assert none_yet.model_dump()["artifacts"] == []
    assert task_view(make_task(), include_artifacts=None).artifacts is None


def test_task_view_combined() -> None:
    view = task_view(viewed_task(), history_length=2, include_artifacts=False)
    assert [m.message_id for m in view.history or []] == ["m3", "m4"]
    assert view.artifacts is None
    assert view.status.state == S.COMPLETED
