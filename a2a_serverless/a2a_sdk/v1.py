"""a2a-sdk 1.x: its objects are protobuf messages of the A2A 1.0 proto; each side is read from
the other's ProtoJSON, through the v1.0 converters of `a2a_serverless.v10`.

a2a-sdk 1.x and 0.3.x cannot be installed side by side, and the type checker sees 0.3.x (the
test extra's): the 1.x modules are looked up by name here, their objects typed `Any`.
"""

from __future__ import annotations

import importlib
from typing import Any

from .. import models as m
from ..turn import Context
from ..v10 import convert
from ..v10 import models as v1
from . import SdkEvent, Sink


def _module(name: str) -> Any:
    return importlib.import_module(name)


class Dialect1:
    def __init__(self) -> None:
        self._pb = _module("a2a.types.a2a_pb2")
        self._json = _module("google.protobuf.json_format")
        self._request_context = _module("a2a.server.agent_execution").RequestContext
        self._call_context = _module("a2a.server.context").ServerCallContext
        self._queue_class = _journal_queue_class(_module("a2a.server.events").EventQueue)
        users = _module("a2a.auth.user")
        self._unauthenticated = users.UnauthenticatedUser
        self._owner_class = _owner_class(users.User)

    def _user(self, owner: str | None) -> Any:
        return self._unauthenticated() if owner is None else self._owner_class(owner)

    def _proto(self, value: dict[str, Any], message: str) -> Any:
        return self._json.ParseDict(value, getattr(self._pb, message)(), ignore_unknown_fields=True)

    def request_context(self, context: Context, task: m.Task | None) -> Any:
        request: dict[str, Any] = {"message": convert.message_out(context.message)}
        if context.accepted_output_modes is not None:
            request["configuration"] = {"acceptedOutputModes": context.accepted_output_modes}
        if context.metadata:
            request["metadata"] = context.metadata
        return self._request_context(
            call_context=self._call_context(
                user=self._user(context.owner), requested_extensions=set(context.extensions)
            ),
            request=self._proto(request, "SendMessageRequest"),
            task_id=context.task_id,
            context_id=context.context_id,
            task=None if task is None else self._proto(convert.task_out(task), "Task"),
        )

    def cancel_context(self, task: m.Task, owner: str | None) -> Any:
        return self._request_context(
            call_context=self._call_context(user=self._user(owner)),
            task_id=task.id,
            context_id=task.context_id,
            task=self._proto(convert.task_out(task), "Task"),
        )

    def event_queue(self, sink: Sink) -> Any:
        return self._queue_class(sink, self._json)


def _owner_class(base: Any) -> Any:
    """A subclass of 1.x's `User` (an ABC, which its ServerCallContext checks for): the
    authenticated caller whose task it is, named by its owner."""

    def __init__(self: Any, owner: str) -> None:
        self._owner = owner

    return type(
        "Owner",
        (base,),
        {
            "__init__": __init__,
            "is_authenticated": property(lambda self: True),
            "user_name": property(lambda self: self._owner),
        },
    )


def _journal_queue_class(base: Any) -> Any:
    """A subclass of 1.x's EventQueue (the producer-side interface its docs say to subclass to
    run an executor outside its server) that hands each event to the turn as it is enqueued."""

    def __init__(self: Any, sink: Sink, json_format: Any) -> None:
        self._sink = sink
        self._json_format = json_format

    async def enqueue_event(self: Any, event: Any) -> None:
        await self._sink(event_in(event, self._json_format))

    return type("JournalQueue", (base,), {"__init__": __init__, "enqueue_event": enqueue_event})


def event_in(event: Any, json_format: Any) -> SdkEvent:
    """A 1.x event (Message, Task, TaskStatusUpdateEvent, TaskArtifactUpdateEvent) as our
    model."""
    kind = event.DESCRIPTOR.name
    wire = json_format.MessageToDict(event)
    if kind == "Message":
        return _message(wire, "message")
    if kind == "Task":
        return _task(wire)
    if kind == "TaskStatusUpdateEvent":
        status = _status(wire.get("status") or {}, "status")
        return m.TaskStatusUpdateEvent(
            task_id=wire.get("taskId", ""),
            context_id=wire.get("contextId", ""),
            status=status,
            metadata=wire.get("metadata"),
        )
    if kind == "TaskArtifactUpdateEvent":
        return m.TaskArtifactUpdateEvent(
            task_id=wire.get("taskId", ""),
            context_id=wire.get("contextId", ""),
            artifact=_artifact(wire.get("artifact") or {}, "artifact"),
            append=wire.get("append"),
            last_chunk=wire.get("lastChunk"),
            metadata=wire.get("metadata"),
        )
    raise TypeError(f"an a2a-sdk executor enqueued a {kind}, which is not an A2A event")


def _message(wire: dict[str, Any], field: str) -> m.Message:
    return convert.message_in(v1.Message.model_validate(wire), field)


def _status(wire: dict[str, Any], field: str) -> m.TaskStatus:
    message = wire.get("message")
    return m.TaskStatus(
        state=convert.state_in(wire.get("state", v1.UNSPECIFIED)),
        message=None if message is None else _message(message, f"{field}.message"),
        timestamp=wire.get("timestamp"),
    )


def _artifact(wire: dict[str, Any], field: str) -> m.Artifact:
    parts = wire.get("parts") or []
    return m.Artifact(
        artifact_id=wire.get("artifactId", ""),
        parts=[
            convert.part_in(v1.Part.model_validate(p), f"{field}.parts.{i}")
            for i, p in enumerate(parts)
        ],
        name=wire.get("name"),
        description=wire.get("description"),
        metadata=wire.get("metadata"),
        extensions=wire.get("extensions"),
    )


def _task(wire: dict[str, Any]) -> m.Task:
    artifacts = wire.get("artifacts")
    history = wire.get("history")
    return m.Task(
        id=wire.get("id", ""),
        context_id=wire.get("contextId", ""),
        status=_status(wire.get("status") or {}, "status"),
        artifacts=None
        if artifacts is None
        else [_artifact(a, f"artifacts.{i}") for i, a in enumerate(artifacts)],
        history=None
        if history is None
        else [_message(h, f"history.{i}") for i, h in enumerate(history)],
        metadata=wire.get("metadata"),
    )
