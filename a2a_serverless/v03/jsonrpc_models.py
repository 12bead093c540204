"""A2A 0.3's JSON-RPC objects, as msgspec Structs: parts, messages, tasks and their events.

The shapes of 0.3's JSON schema (`spec/a2a.json` of A2A v0.3.0), as its JSON-RPC binding carries
them: the `kind` of a part, message, task or event is its class, written on the wire without
being spelt out, and the input must carry it (the unions are tagged by it); `FilePart.file` is a
`FileWithBytes` or a `FileWithUri` by which one of `bytes` / `uri` it has (exactly one); a status
update has `final`. The server reads a request's message into these (inside the params of
`jsonrpc_params.py`) and the client a result or a stream event; `jsonrpc_convert.py` turns them
into the internal model (A2A 1.0's) and writes the internal model back in these shapes. The
internal model's `TaskState` values are 0.3's state names, so states need no table here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from msgspec import Meta

from ..models import A2AModel, TaskState, is_base64


class TextPart(A2AModel, tag_field="kind", tag="text"):
    kind: ClassVar[str] = "text"
    text: str
    metadata: dict[str, Any] | None = None


class FileWithBytes(A2AModel):
    bytes: str  # base64 (RFC 4648 §4), checked
    mime_type: str | None = None
    name: str | None = None


class FileWithUri(A2AModel):
    uri: str
    mime_type: str | None = None
    name: str | None = None


class _FileObject(A2AModel):
    """`FilePart.file` as decoded: msgspec tells union members apart only by a tag, and the two
    kinds of file have none, so `FilePart` turns this into the one its content says."""

    bytes: str | None = None
    uri: str | None = None
    mime_type: str | None = None
    name: str | None = None


class FilePart(A2AModel, tag_field="kind", tag="file"):
    kind: ClassVar[str] = "file"
    if TYPE_CHECKING:
        file: FileWithBytes | FileWithUri
    else:  # what msgspec decodes; __post_init__ makes it one of the two
        file: _FileObject
    metadata: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        file: Any = self.file
        if isinstance(file, _FileObject):
            if (file.bytes is None) == (file.uri is None):
                raise ValueError("file: must have exactly one of 'bytes' and 'uri'")
            if file.bytes is not None:
                self.file = FileWithBytes(
                    bytes=file.bytes, mime_type=file.mime_type, name=file.name
                )
            else:
                assert file.uri is not None
                self.file = FileWithUri(uri=file.uri, mime_type=file.mime_type, name=file.name)
        if isinstance(self.file, FileWithBytes) and not is_base64(self.file.bytes):
            raise ValueError("file.bytes: must be base64 (RFC 4648)")


class DataPart(A2AModel, tag_field="kind", tag="data"):
    kind: ClassVar[str] = "data"
    data: dict[str, Any]
    metadata: dict[str, Any] | None = None


Part = TextPart | FilePart | DataPart


class Message(A2AModel, tag_field="kind", tag="message"):
    kind: ClassVar[str] = "message"
    message_id: str
    role: Literal["user", "agent"]
    # The schema allows an empty list; a message that says nothing is a client bug, refused.
    parts: Annotated[list[Part], Meta(min_length=1)]
    context_id: str | None = None
    task_id: str | None = None
    reference_task_ids: list[str] | None = None
    extensions: list[str] | None = None
    metadata: dict[str, Any] | None = None


class TaskStatus(A2AModel):
    state: TaskState
    message: Message | None = None
    timestamp: str | None = None


class Artifact(A2AModel):
    artifact_id: str
    parts: list[Part]
    name: str | None = None
    description: str | None = None
    extensions: list[str] | None = None
    metadata: dict[str, Any] | None = None


class Task(A2AModel, tag_field="kind", tag="task"):
    kind: ClassVar[str] = "task"
    id: str
    context_id: str
    status: TaskStatus
    artifacts: list[Artifact] | None = None
    history: list[Message] | None = None
    metadata: dict[str, Any] | None = None


class TaskStatusUpdateEvent(A2AModel, tag_field="kind", tag="status-update"):
    kind: ClassVar[str] = "status-update"
    task_id: str
    context_id: str
    status: TaskStatus
    final: bool
    metadata: dict[str, Any] | None = None


class TaskArtifactUpdateEvent(A2AModel, tag_field="kind", tag="artifact-update"):
    kind: ClassVar[str] = "artifact-update"
    task_id: str
    context_id: str
    artifact: Artifact
    append: bool | None = None
    last_chunk: bool | None = None
    metadata: dict[str, Any] | None = None


StreamResult = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent
