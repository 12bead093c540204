"""A2A 0.3's push notification form: the body is the Task itself (the internal JSON, which is
0.3's), sent as `application/json`. push/payload.py bounds it; `versions.webhook_form` finds it."""

from __future__ import annotations

from typing import Any

CONTENT_TYPE = "application/json"
# What a task cut down to its id, context and state keeps besides them.
BARE: dict[str, Any] = {"kind": "task"}


def task(internal: dict[str, Any]) -> dict[str, Any]:
    """0.3's Task JSON of the internal Task JSON: the same."""
    return internal


def body(task_json: dict[str, Any]) -> dict[str, Any]:
    """The notification body carrying a Task: the Task."""
    return task_json
