"""Stored records in the shapes earlier versions of the kit wrote, read into today's models.

Records outlive the code that wrote them: a store written before a model changed shape is still
read, on every store (they all share `base.py`'s JSON forms). This module is the one place that
knows the old shapes, next to the new ones, and turns what it reads into today's model. The old
shapes are the kit's own storage forms, not a protocol's wire: nothing here imports a codec
(`v03/` stays deletable on its own).

Message content: until the internal model became A2A 1.0's, the stores kept it in the shapes of
0.3's JSON-RPC form: parts, messages, tasks and events carried a `kind`; a file part nested its
content in `file` (`bytes` or `uri`, `mimeType`, `name`); a data part whose content was not a
JSON object held it as `{"value": ...}` with `metadata.data_part_compat`; a status update had
`final`; the event log held the events untagged but for their `kind`. Task records, event logs,
stored replies, large parts in object storage, the remote outcomes a durable call recorded and
the task a queued notification carries may still hold that form. Each function below takes the
JSON (a dict) of an object in either form and returns it in today's, which the model then reads.
A record in the old form is told apart by how it begins (`is_old_record`, ...): the old form
wrote the `kind` of a task, an event, a part or a reply first; today's form has none. The other
way, `old_message` and `old_part` give a message's old form, which the digests kept with
idempotency keys were taken over (`service.request_fingerprint`, `message_digest`): a retry of a
request made before the change has the same key, not a second task.

Push configs (`StoredPushConfig.config`): written flat since the internal model became 1.0's,
`{url, id, taskId, token, authentication: {scheme, credentials}}`; before, without `taskId`
(the record's own `taskId` says it) and with `authentication: {schemes: [...], credentials}`.
Of an old list of schemes the one notifications were sent with is kept
(`AuthenticationInfo.of_schemes`, as 0.3's wire form has it now).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..models import AuthenticationInfo, TaskPushNotificationConfig

JSON = dict[str, Any]

_DATA_PART_COMPAT = "data_part_compat"
_EVENT_TAGS = {"status-update": "statusUpdate", "artifact-update": "artifactUpdate"}


def is_old_record(text: str | bytes) -> bool:
    """Whether a task record's JSON holds its task in the old form."""
    prefix = text[:22]
    return prefix == '{"task":{"kind":"task"' or prefix == b'{"task":{"kind":"task"'


def is_old_event(text: str | bytes) -> bool:
    """Whether an event log entry's JSON is in the old form (an untagged event)."""
    return _kind_first(text)


def is_old_part(text: str | bytes) -> bool:
    """Whether a part's JSON (a large part kept in object storage) is in the old form."""
    return _kind_first(text)


def _kind_first(text: str | bytes) -> bool:
    prefix = text[:8]
    return prefix == '{"kind":' or prefix == b'{"kind":'


def is_old_reply(text: str | bytes) -> bool:
    """Whether a stored reply's JSON holds its message in the old form."""
    if isinstance(text, bytes):
        return b'"reply":{"kind":"message"' in text
    return '"reply":{"kind":"message"' in text


def part(old: JSON) -> JSON:
    kind = old.get("kind")
    if kind is None:
        return old
    new: JSON = {}
    metadata = old.get("metadata")
    if kind == "text":
        new["text"] = old.get("text")
    elif kind == "file":
        file = old.get("file") or {}
        if "bytes" in file:
            new["raw"] = file["bytes"]
        else:
            new["url"] = file.get("uri")
        if file.get("mimeType") is not None:
            new["mediaType"] = file["mimeType"]
        if file.get("name") is not None:
            new["filename"] = file["name"]
    else:
        data = old.get("data")
        if (
            isinstance(metadata, dict)
            and metadata.get(_DATA_PART_COMPAT) is True
            and isinstance(data, dict)
            and "value" in data
        ):
            # A 1.0 client's `data` that was no JSON object, kept wrapped for 0.3's DataPart.
            data = data["value"]
            metadata = {k: v for k, v in metadata.items() if k != _DATA_PART_COMPAT} or None
        new["data"] = data
    if metadata is not None:
        new["metadata"] = metadata
    return new


def _parts(old: Any) -> Any:
    return [part(p) if isinstance(p, dict) else p for p in old] if isinstance(old, list) else old


def message(old: JSON) -> JSON:
    new = {k: v for k, v in old.items() if k != "kind"}
    if "parts" in new:
        new["parts"] = _parts(new["parts"])
    return new


def artifact(old: JSON) -> JSON:
    if "parts" not in old:
        return old
    return {**old, "parts": _parts(old["parts"])}


def status(old: JSON) -> JSON:
    inner = old.get("message")
    if not isinstance(inner, dict):
        return old
    return {**old, "message": message(inner)}


def task(old: JSON) -> JSON:
    new = {k: v for k, v in old.items() if k != "kind"}
    if isinstance(new.get("status"), dict):
        new["status"] = status(new["status"])
    if isinstance(new.get("artifacts"), list):
        new["artifacts"] = [artifact(a) if isinstance(a, dict) else a for a in new["artifacts"]]
    if isinstance(new.get("history"), list):
        new["history"] = [message(h) if isinstance(h, dict) else h for h in new["history"]]
    return new


def task_or_message(old: JSON) -> JSON:
    """A remote's outcome as a durable call recorded it: a Task or a Message (which has a
    `messageId` in either form)."""
    return message(old) if "messageId" in old else task(old)


def record(old: JSON) -> JSON:
    """A task record's JSON (its `task` in either form)."""
    inner = old.get("task")
    return {**old, "task": task(inner)} if isinstance(inner, dict) else old


def event(old: JSON) -> JSON:
    """An event log entry, tagged as today (`{"statusUpdate": ...}` / `{"artifactUpdate":
    ...}`), without the old `kind` and `final`."""
    tag = _EVENT_TAGS.get(old.get("kind"))  # type: ignore[arg-type]
    if tag is None:
        return old
    new = {k: v for k, v in old.items() if k not in ("kind", "final")}
    if isinstance(new.get("status"), dict):
        new["status"] = status(new["status"])
    if isinstance(new.get("artifact"), dict):
        new["artifact"] = artifact(new["artifact"])
    return {tag: new}


def reply(old: JSON) -> JSON:
    """A stored reply's JSON (its `reply` message in either form)."""
    inner = old.get("reply")
    return {**old, "reply": message(inner)} if isinstance(inner, dict) else old


def old_part(new: JSON) -> JSON:
    """A part's JSON (today's form) in the old form (`media_type` and `filename` of a text or
    data part, which it had no place for, left out)."""
    metadata = new.get("metadata")
    old: JSON
    if "text" in new:
        old = {"kind": "text", "text": new["text"]}
    elif "raw" in new or "url" in new:
        file: JSON = {"bytes": new["raw"]} if "raw" in new else {"uri": new["url"]}
        if "mediaType" in new:
            file["mimeType"] = new["mediaType"]
        if "filename" in new:
            file["name"] = new["filename"]
        old = {"kind": "file", "file": file}
    elif isinstance(new.get("data"), dict):
        old = {"kind": "data", "data": new["data"]}
    else:
        old = {"kind": "data", "data": {"value": new.get("data")}}
        metadata = {**(metadata or {}), _DATA_PART_COMPAT: True}
    if metadata is not None:
        old["metadata"] = metadata
    return old


def old_message(new: JSON) -> JSON:
    """A message's JSON (today's form) in the old form."""
    return {"kind": "message", **new, "parts": [old_part(p) for p in new.get("parts", [])]}


# --- push configs ---------------------------------------------------------------------------


class StoredAuthentication(msgspec.Struct, gc=False):
    """A push config's authentication, as stored now (`scheme`) or before (`schemes`)."""

    scheme: str | None = None
    schemes: list[str] | None = None
    credentials: str | None = None


class StoredPushConfigBody(msgspec.Struct, rename="camel", gc=False):
    """A push config, as stored now or before (the differences are optional fields)."""

    url: str
    id: str | None = None
    task_id: str | None = None
    token: str | None = None
    authentication: StoredAuthentication | None = None


def push_config(stored: StoredPushConfigBody, task_id: str) -> TaskPushNotificationConfig:
    """Today's push config of a stored one of task `task_id`, whichever shape it was kept in."""
    auth = stored.authentication
    authentication = None
    if auth is not None:
        if auth.scheme is not None:
            authentication = AuthenticationInfo(scheme=auth.scheme, credentials=auth.credentials)
        else:
            authentication = AuthenticationInfo.of_schemes(auth.schemes or [], auth.credentials)
    return TaskPushNotificationConfig(
        url=stored.url,
        id=stored.id,
        task_id=stored.task_id or task_id,
        token=stored.token,
        authentication=authentication,
    )
