"""A2A 1.0's push notification form (spec 1.0 §4.3.3): a StreamResponse `{"task": ...}` in 1.0's
shapes, sent as `application/a2a+json`. push/payload.py bounds it; `versions.webhook_form` finds
it (imported only for a config set over 1.0)."""

from __future__ import annotations

from typing import Any

from ..models import Task
from .convert import task_out

CONTENT_TYPE = "application/a2a+json"
# What a task cut down to its id, context and state keeps besides them (1.0 has no `kind`).
BARE: dict[str, Any] = {}


def task(internal: Task) -> dict[str, Any]:
    """1.0's Task JSON of an internal Task."""
    return task_out(internal)


def body(task_json: dict[str, Any]) -> dict[str, Any]:
    """The notification body carrying a Task: a StreamResponse."""
    return {"task": task_json}
