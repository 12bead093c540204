"""The app's paths, in one place: every fixed path it serves, and which HTTP+JSON route of each
A2A version a request path names (a2a.proto's `google.api.http` paths).

The app (asgi.py) routes by these; the FastAPI mount, the inspector, the dev server's banner and
the OpenAPI generator read them here. Cheap on purpose: asgi.py asks `v10_route` about every
request that no other route takes, before the v1.0 binding (`v10/rest.py`) is imported, so a
v0.3 deployment never loads that module.

    /.well-known/agent-card.json   the agent card (also the older /.well-known/agent.json)
    /.well-known/jwks.json         public keys verifying the webhook JWTs (push enabled)
    /v1/openapi.json               an OpenAPI 3.1 document of both versions' HTTP+JSON routes
    /health                        liveness
    /_inspector/...                the inspector page and its API (inspector/)
    /_a2a/callbacks/{task}/{id}    a durable call's callback: the remote's push notification
                                   (durable/resume.py)
    /v1/...                        A2A 0.3's HTTP+JSON binding (`v03_route`; v03/rest.py)

A2A 0.3's routes (`v03_route`) are under `/v1/` (the `/v1` of a2a.proto's 0.3 paths, not the
A2A version; their path fields keep 0.3's names, `id` and `configId`):

    /v1/message:send   /v1/message:stream   /v1/card   /v1/tasks   /v1/tasks/{id}
    /v1/tasks/{id}:cancel   /v1/tasks/{id}:subscribe
    /v1/tasks/{id}/pushNotificationConfigs   /v1/tasks/{id}/pushNotificationConfigs/{configId}

A2A 1.0's routes (`v10_route`; v10/rest.py) have no `/v1` prefix, and each is also served
under one leading `/{tenant}/` segment:

    /message:send   /message:stream   /extendedAgentCard   /tasks   /tasks/{id}
    /tasks/{id}:cancel   /tasks/{id}:subscribe
    /tasks/{taskId}/pushNotificationConfigs   /tasks/{taskId}/pushNotificationConfigs/{id}

A path is matched without a tenant first (as the official SDK's server does), so `/tasks/x` is
the task `x`, never the list of tenant `tasks`. A tenant named `v1` cannot be given in the path:
`/v1/...` is the v0.3 binding (asgi.py routes it first); such a client sends it in the body.
"""

from __future__ import annotations

import msgspec

CARD_PATH = "/.well-known/agent-card.json"
CARD_PATHS = (CARD_PATH, "/.well-known/agent.json")
JWKS_PATH = "/.well-known/jwks.json"
OPENAPI_PATH = "/v1/openapi.json"
HEALTH_PATH = "/health"
INSPECTOR_PREFIX = "/_inspector"
# Durable calls' callbacks: {CALLBACK_PREFIX}{our task id}/{the call's random callback id}.
CALLBACK_PREFIX = "/_a2a/callbacks/"
# A2A 0.3's HTTP+JSON routes are under it.
REST_PREFIX = "/v1/"

PUSH_CONFIGS = "pushNotificationConfigs"


def is_rest_path(path: str) -> bool:
    """Whether `path` is one of A2A 0.3's HTTP+JSON routes (or names none under their prefix)."""
    return path.startswith(REST_PREFIX) or path == REST_PREFIX.rstrip("/")


def is_callback_path(path: str) -> bool:
    return path.startswith(CALLBACK_PREFIX)


def is_inspector_path(path: str) -> bool:
    return path == INSPECTOR_PREFIX or path.startswith(INSPECTOR_PREFIX + "/")


class Route(msgspec.Struct, frozen=True):
    """An HTTP+JSON route a path names: its name (the key of a version's route table) and the
    fields the path gives."""

    # "message:send", "message:stream", "extendedAgentCard" (0.3: "card"), "tasks", "task",
    # "task:cancel", "task:subscribe", "pushConfigs" or "pushConfig".
    name: str
    # The path's fields, under the version's json names (1.0: "id", "taskId"; 0.3: "id",
    # "configId").
    params: dict[str, str] = msgspec.field(default_factory=dict)
    tenant: str | None = None


def custom_method(segment: str) -> tuple[str, str | None]:
    """`{id}:cancel` -> (id, "cancel"); a segment with no known verb is all id."""
    task_id, colon, verb = segment.rpartition(":")
    if colon and verb in ("cancel", "subscribe"):
        return task_id, verb
    return segment, None


class _Names(msgspec.Struct, frozen=True, kw_only=True):
    """What a version calls its routes' parts: the extended card's route, and the path fields
    of a push config's task and its config (a task's own route names it `id` in both)."""

    card: str
    task: str
    config: str


_V03_NAMES = _Names(card="card", task="id", config="configId")
_V10_NAMES = _Names(card="extendedAgentCard", task="taskId", config="id")


def _match(segments: list[str], names: _Names) -> Route | None:
    """The route the path's segments (after any prefix and tenant) name, or None."""
    match segments:
        case ["message:send" | "message:stream" | "tasks" as name]:
            return Route(name)
        case [name] if name == names.card:
            return Route(name)
        case ["tasks", task] if task:
            task_id, verb = custom_method(task)
            if verb is not None and task_id:
                return Route(f"task:{verb}", {"id": task_id})
            return Route("task", {"id": task})
        case ["tasks", task, "pushNotificationConfigs"] if task:
            return Route("pushConfigs", {names.task: task})
        case ["tasks", task, "pushNotificationConfigs", config] if task and config:
            return Route("pushConfig", {names.task: task, names.config: config})
    return None


def v03_route(path: str) -> Route | None:
    """The v0.3 route `path` names (under `/v1/`), or None."""
    if not path.startswith(REST_PREFIX):
        return None
    return _match(path[len(REST_PREFIX) :].split("/"), _V03_NAMES)


# Each v1.0 route's path template (without a tenant), by route name: what `v10_route` reads
# back (tests/docs/test_openapi_data.py), for the OpenAPI generator.
V10_PATHS: dict[str, str] = {
    "message:send": "/message:send",
    "message:stream": "/message:stream",
    "tasks": "/tasks",
    "task": "/tasks/{id}",
    "task:cancel": "/tasks/{id}:cancel",
    "task:subscribe": "/tasks/{id}:subscribe",
    "pushConfigs": f"/tasks/{{taskId}}/{PUSH_CONFIGS}",
    "pushConfig": f"/tasks/{{taskId}}/{PUSH_CONFIGS}/{{id}}",
    "extendedAgentCard": "/extendedAgentCard",
}


def v10_route(path: str) -> Route | None:
    """The v1.0 route `path` names, or None."""
    segments = path.split("/")[1:]
    found = _match(segments, _V10_NAMES)
    if found is not None:
        return found
    if len(segments) > 1 and segments[0]:
        found = _match(segments[1:], _V10_NAMES)
        if found is not None:
            return Route(found.name, found.params, segments[0])
    return None
