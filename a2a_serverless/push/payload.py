"""What one notification is: its stable id, its body (the Task, bounded) and its headers.

Pure functions of the task and the config, shared by the outbox (the snapshot a job carries),
the delivery (the body and headers of the POST) and the tests. The body's form is the codec's
of the version the config was set in (`versions.webhook_form`); nothing here is of one version.
"""

from __future__ import annotations

import base64
import json
import re
import uuid
from typing import Any

import msgspec

from ..models import Task, TaskPushNotificationConfig
from ..versions import V03, webhook_form

# Notification ids are uuid5(NOTIFICATION_NAMESPACE, "<task id>/<config id>/<seq>").
NOTIFICATION_NAMESPACE = uuid.UUID("5d0f4c1e-2f7b-5a57-9a0e-6b1d3c2a8e41")
# A snapshot larger than this is not put on the queue (SQS takes 256 KiB per message): the
# notification then carries the task as it is when it is sent.
MAX_INLINE_TASK_BYTES = 192 * 1024

_HEADER_UNSAFE = re.compile(r"[\x00-\x1f\x7f]")
# The server's JSON encoder (codec.py) with object members in sorted order. Built once.
_SORTED = msgspec.json.Encoder(order="sorted")


def notification_id(task_id: str, config_id: str, seq: int) -> str:
    """The stable id of the notification of event `seq` to config `config_id`."""
    return str(uuid.uuid5(NOTIFICATION_NAMESPACE, f"{task_id}/{config_id}/{seq}"))


def encode_task(task: dict[str, Any]) -> bytes:
    """The request body: the Task as compact UTF-8 JSON with sorted keys (the A2A samples'
    canonical form), by msgspec as every response is. The signature's `bodySha256` is taken
    over these very bytes, which are the ones sent. A NaN or infinity (never stored: requests
    refuse them) would go out as `null`, as in a response; a string UTF-8 cannot hold (a lone
    surrogate an agent produced) goes out escaped, as in a response (http.py `json_bytes`)."""
    try:
        return _SORTED.encode(task)
    except UnicodeEncodeError:
        # msgspec has no ASCII-only mode: the standard library's escapes what UTF-8 cannot hold.
        return json.dumps(task, sort_keys=True, separators=(",", ":")).encode()


def bounded_body(task: Task, limit: int, version: str = V03) -> bytes:
    """The notification body of `task`, at most about `limit` bytes: a
    larger task goes without its history and artifacts, then without anything but its id,
    context and status state (the receiver reads the rest with tasks/get).

    In the form of the version the config was registered in (its codec's, `versions.
    webhook_form`): v0.3, the Task; v1.0, a StreamResponse `{"task": ...}` in v1.0's shapes.
    """
    form = webhook_form(version)
    task_json = form.task(task)
    body = encode_task(form.body(task_json))
    if len(body) <= limit:
        return body
    trimmed = {k: v for k, v in task_json.items() if k not in ("history", "artifacts")}
    body = encode_task(form.body(trimmed))
    if len(body) <= limit:
        return body
    status = task_json.get("status") or {}
    bare = {
        **form.BARE,
        "id": task_json.get("id"),
        "contextId": task_json.get("contextId"),
        "status": {k: status[k] for k in ("state", "timestamp") if k in status},
    }
    return encode_task(form.body(bare))


def notification_headers(
    config: TaskPushNotificationConfig, nid: str, seq: int, jwt_token: str, version: str = V03
) -> dict[str, str]:
    """The headers of one notification POST (ValueError if the config's values are unusable).

    Our JWT goes in `Authorization: Bearer`, unless the config carries credentials for a Bearer
    or Basic scheme: those then go in Authorization and the JWT in X-A2A-Notification-JWT. The
    body's type is the config's version's (v1.0: `application/a2a+json`).
    """
    headers = {
        "Content-Type": webhook_form(version).CONTENT_TYPE,
        "X-A2A-Notification-Id": nid,
        "X-A2A-Notification-Seq": str(seq),
    }
    if config.token:
        if _HEADER_UNSAFE.search(config.token) or not config.token.isascii():
            raise ValueError("the config's token contains control characters or non-ASCII text")
        headers["X-A2A-Notification-Token"] = config.token
    explicit = _explicit_authorization(config)
    if explicit is not None:
        headers["Authorization"] = explicit
        headers["X-A2A-Notification-JWT"] = jwt_token
    else:
        headers["Authorization"] = f"Bearer {jwt_token}"
    return headers


def _explicit_authorization(config: TaskPushNotificationConfig) -> str | None:
    auth = config.authentication
    if auth is None or not auth.credentials:
        return None
    credentials = auth.credentials.strip()
    if _HEADER_UNSAFE.search(credentials) or not credentials.isascii():
        raise ValueError("the config's credentials contain control characters or non-ASCII text")
    scheme = auth.scheme.strip().lower()
    if scheme == "bearer":
        return f"Bearer {credentials}"
    if scheme == "basic":
        if ":" in credentials:  # user:password, not yet encoded
            credentials = base64.b64encode(credentials.encode()).decode("ascii")
        return f"Basic {credentials}"
    return None


def snapshot(task: Task) -> dict[str, Any] | None:
    """The Task a notification job carries, or None if it is too large to queue."""
    data = task.model_dump()
    if len(encode_task(data)) > MAX_INLINE_TASK_BYTES:
        return None
    return data
