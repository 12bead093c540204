"""A2A 0.3's push notification form: the body is the Task itself (in 0.3's JSON-RPC shapes,
`jsonrpc_convert.py`), sent as `application/json`. push/payload.py bounds it;
`versions.webhook_form` finds it."""

from __future__ import annotations

from typing import Any

from ..models import Task
from .jsonrpc_convert import task_out

CONTENT_TYPE = "application/json"
# What a task cut down to its id, context and state keeps besides them.
BARE: dict[str, Any] = {"kind": "task"}


def task(internal: Task) -> dict[str, Any]:
    """0.3's Task JSON of an internal Task."""
    return task_out(internal)


def body(task_json: dict[str, Any]) -> dict[str, Any]:
    """The notification body carrying a Task: the Task."""
    return task_json
