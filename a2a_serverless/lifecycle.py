"""The task state machine and how events change a Task.

Pure functions, no I/O: the service and the worker decide *what* happens here, the journal
writes it. Keeping the rules in one place is what makes "a terminal task never changes again"
true for every writer.
"""

from __future__ import annotations

import time

from msgspec.structs import replace

from .exceptions import A2AServerlessError
from .models import (
    Artifact,
    Message,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

S = TaskState

# Which state may follow which. Terminal states have no successors: once completed, failed,
# canceled or rejected, a task is immutable (spec: life-of-a-task, "Task Immutability").
ALLOWED_TRANSITIONS: dict[TaskState, frozenset[TaskState]] = {
    S.SUBMITTED: frozenset(
        {S.SUBMITTED, S.WORKING, S.INPUT_REQUIRED, S.AUTH_REQUIRED}
        | {S.COMPLETED, S.FAILED, S.CANCELED, S.REJECTED}
    ),
    S.WORKING: frozenset(
        {S.WORKING, S.INPUT_REQUIRED, S.AUTH_REQUIRED}
        | {S.COMPLETED, S.FAILED, S.CANCELED, S.REJECTED}
    ),
    # An interrupted task resumes when the client answers (submitted, then working).
    S.INPUT_REQUIRED: frozenset({S.SUBMITTED, S.WORKING, S.CANCELED, S.FAILED}),
    S.AUTH_REQUIRED: frozenset({S.SUBMITTED, S.WORKING, S.CANCELED, S.FAILED}),
    S.UNKNOWN: frozenset({S.SUBMITTED, S.WORKING, S.CANCELED, S.FAILED}),
    S.COMPLETED: frozenset(),
    S.FAILED: frozenset(),
    S.CANCELED: frozenset(),
    S.REJECTED: frozenset(),
}

CANCELABLE_STATES = frozenset(
    {S.SUBMITTED, S.WORKING, S.INPUT_REQUIRED, S.AUTH_REQUIRED, S.UNKNOWN}
)


class InvalidTransition(A2AServerlessError):
    def __init__(self, old: TaskState, new: TaskState) -> None:
        super().__init__(f"a task in state {old.value!r} cannot move to {new.value!r}")
        self.old = old
        self.new = new


def check_transition(old: TaskState, new: TaskState) -> None:
    if new not in ALLOWED_TRANSITIONS[old]:
        raise InvalidTransition(old, new)


# The second `now_iso` last formatted and its text: the date and time change once a second,
# the milliseconds every call (formatting the whole stamp is ~1.2 us, three times a send).
# One tuple, replaced whole, so a thread never sees a second with another's text.
_last_second: tuple[int, str] = (-1, "")


def now_iso() -> str:
    """UTC timestamp in ISO 8601 with milliseconds and a `Z`, as status timestamps use
    (`datetime.now(UTC).isoformat(timespec="milliseconds")` with `Z` for `+00:00`)."""
    global _last_second
    second, millis = divmod(time.time_ns() // 1_000_000, 1000)
    cached_second, text = _last_second
    if second != cached_second:
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        _last_second = (second, text)
    return f"{text}.{millis:03d}Z"


def status_event(
    task: Task, state: TaskState, message: Message | None = None
) -> TaskStatusUpdateEvent:
    """The status-update event moving `task` to `state`."""
    return TaskStatusUpdateEvent(
        task_id=task.id,
        context_id=task.context_id,
        status=TaskStatus(state=state, message=message, timestamp=now_iso()),
    )


def apply_status(task: Task, event: TaskStatusUpdateEvent) -> Task:
    """`task` after a status update. An agent message in the status also joins the history."""
    check_transition(task.status.state, event.status.state)
    # Without a message the history list is shared, not copied: like every list in a Task it is
    # replaced, never changed in place (see `model_copy`).
    history = task.history
    if event.status.message is not None:
        history = [*(history or []), event.status.message]
    # `replace`, what `model_copy` calls, without the dict of updates: twice a send.
    return replace(task, status=event.status, history=history or None)


def apply_artifact(task: Task, event: TaskArtifactUpdateEvent) -> Task:
    """`task` after an artifact update: a new artifact, a replacement, or a chunk appended."""
    if task.status.state.is_terminal:
        raise InvalidTransition(task.status.state, task.status.state)
    incoming = event.artifact
    artifacts = list(task.artifacts or [])
    for index, existing in enumerate(artifacts):
        if existing.artifact_id != incoming.artifact_id:
            continue
        if event.append:
            artifacts[index] = _merge_chunk(existing, incoming)
        else:
            artifacts[index] = incoming
        break
    else:
        artifacts.append(incoming)
    return replace(task, artifacts=artifacts)


def _merge_chunk(existing: Artifact, chunk: Artifact) -> Artifact:
    update: dict[str, object] = {"parts": [*existing.parts, *chunk.parts]}
    for name in ("name", "description", "metadata", "extensions"):
        value = getattr(chunk, name)
        if value is not None:
            update[name] = value
    return existing.model_copy(update=update)


def apply_event(task: Task, event: TaskStatusUpdateEvent | TaskArtifactUpdateEvent) -> Task:
    if isinstance(event, TaskStatusUpdateEvent):
        return apply_status(task, event)
    return apply_artifact(task, event)


def add_to_history(task: Task, message: Message) -> Task:
    return task.model_copy(update={"history": [*(task.history or []), message]})


def task_view(
    task: Task, *, history_length: int | None = None, include_artifacts: bool | None = None
) -> Task:
    """The Task as a client asked to see it.

    `history_length` None keeps the whole history, N the last N messages, 0 none (the field is
    then left out). `include_artifacts` None shows artifacts as stored; False leaves the field
    out entirely and True always includes it, `[]` if there are none (as `tasks/list` requires).
    """
    update: dict[str, object] = {}
    if history_length is not None and task.history is not None:
        update["history"] = task.history[-history_length:] if history_length > 0 else None
    if include_artifacts is False:
        update["artifacts"] = None
    elif include_artifacts and task.artifacts is None:
        update["artifacts"] = []
    return task.model_copy(update=update) if update else task
