"""The inspector: a page to talk to the agent and see what it does, served by the app itself.

    GET  /_inspector/                      the page (static/index.html)
    GET  /_inspector/static/<file>         its script and style sheet (package data, no CDN)
    GET  /_inspector/api/info              what the page needs: the JSON-RPC path, the protocol
                                           versions served (newest first), the card URL of each
    GET  /_inspector/api/tasks/<id>/push   the task's push configs and their deliveries: the
                                           cursor, the notification being retried, dead letters
    GET  /_inspector/api/tasks/<id>/calls  the durable operations of the task's current turn
                                           (calls, sleeps, steps: durable/report.py)
    POST /_inspector/api/tasks/<id>/dead-letters/<notification id>/redrive
                                           send a dead letter again (`PushNotifier.redrive`)

Everything else the page shows comes through the app's own JSON-RPC endpoint, as any client
would see it, in A2A 1.0 (the `A2A-Version: 1.0` header; the page's default) or 0.3:
SendMessage / message/send, SendStreamingMessage / message/stream, ListTasks / tasks/list,
GetTask / tasks/get, CancelTask / tasks/cancel, SubscribeToTask / tasks/resubscribe with
Last-Event-ID (the event log, replayed from any event), and the agent card.

Served in dev mode; elsewhere only with `A2A_INSPECTOR=true`, and then only where requests are
authenticated (`A2A_AUTH_*`): the app refuses to start otherwise. The API answers the caller's
own tasks only, authenticated like every other request; the page and its assets are public
(they are code, like the card) and send the credentials the user types into the page.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from ..exceptions import ConfigurationError
from ..http import Request, Response, json_response
from ..routepaths import CARD_PATH, INSPECTOR_PREFIX
from ..service import Caller
from ..versions import SUPPORTED

if TYPE_CHECKING:
    from ..runtime import Runtime

PREFIX = INSPECTOR_PREFIX
# One document serves both versions (card.card_document: the v0.3 card with v1.0's members).
CARD_VERSIONS = ({"version": "0.3", "path": CARD_PATH},)
PROTOCOL_VERSIONS = sorted(SUPPORTED, key=lambda v: tuple(map(int, v.split("."))), reverse=True)
ASSETS = {
    "index.html": "text/html; charset=utf-8",
    "inspector.js": "text/javascript; charset=utf-8",
    "inspector.css": "text/css; charset=utf-8",
}
PAGE_HEADERS: list[tuple[bytes, bytes]] = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        b"img-src 'self' data: blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-cache"),
]
_PUSH = re.compile(r"^/api/tasks/([^/]+)/push$")
_CALLS = re.compile(r"^/api/tasks/([^/]+)/calls$")
_REDRIVE = re.compile(r"^/api/tasks/([^/]+)/dead-letters/([^/]+)/redrive$")

Authenticate = Callable[[Request], Awaitable[Caller | Response]]


class InspectorRefused(ConfigurationError):
    """The inspector was enabled where it may not be served (no authentication)."""


def inspector_enabled(runtime: Runtime) -> bool:
    """Whether to serve the inspector; InspectorRefused if enabled without authentication."""
    settings = runtime.settings
    if settings.dev_mode:
        return True
    if not settings.inspector:
        return False
    if not runtime.security.enabled:
        raise InspectorRefused(
            "A2A_INSPECTOR=true outside dev mode needs authentication: set the A2A_AUTH_* "
            "settings (docs/configuration.md), or serve the inspector in dev mode only"
        )
    return True


class Inspector:
    def __init__(self, runtime: Runtime, authenticate: Authenticate, rpc_path: str) -> None:
        self.runtime = runtime
        self.authenticate = authenticate
        self.rpc_path = rpc_path
        self._assets: dict[str, bytes] = {}

    async def respond(self, request: Request) -> Response:
        """The answer to a request whose path starts with PREFIX."""
        path, method = request.path[len(PREFIX) :], request.method
        if path == "":
            return _redirect(f"{request.scope.get('root_path', '')}{PREFIX}/")
        if path == "/" and method in ("GET", "HEAD"):
            return self._asset("index.html")
        if path.startswith("/static/") and method in ("GET", "HEAD"):
            name = path[len("/static/") :]
            if name in ASSETS and name != "index.html":
                return self._asset(name)
            return json_response(404, {"error": "not found"})
        if not path.startswith("/api/"):
            return json_response(404, {"error": "not found"})
        caller = await self.authenticate(request)
        if isinstance(caller, Response):
            return caller  # the 401/403 refusing it
        if path == "/api/info" and method == "GET":
            return json_response(200, self._info())
        match = _PUSH.match(path)
        if match and method == "GET":
            return await self._push(match.group(1), caller)
        match = _CALLS.match(path)
        if match and method == "GET":
            return await self._calls(match.group(1), caller)
        match = _REDRIVE.match(path)
        if match and method == "POST":
            # A JSON content type cannot be sent by a cross-site form without a preflight.
            if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
                return json_response(415, {"error": "send Content-Type: application/json"})
            return await self._redrive(match.group(1), match.group(2), caller)
        return json_response(404, {"error": "not found"})

    # --- the page -------------------------------------------------------------------------------

    def _asset(self, name: str) -> Response:
        body = self._assets.get(name)
        if body is None:
            body = files(__package__).joinpath("static", name).read_bytes()
            self._assets[name] = body
        return Response(200, [(b"content-type", ASSETS[name].encode()), *PAGE_HEADERS], body)

    def _info(self) -> dict[str, Any]:
        runtime = self.runtime
        return {
            "agent": runtime.agent.name,
            "rpcPath": self.rpc_path,
            "protocolVersions": PROTOCOL_VERSIONS,
            "cards": list(CARD_VERSIONS),
            "devMode": runtime.settings.dev_mode,
            "authenticated": runtime.security.enabled,
            "streaming": runtime.settings.streaming,
            "pushNotifications": runtime.notifier is not None,
        }

    # --- push configs and deliveries -------------------------------------------------------------

    async def _push(self, task_id: str, caller: Caller) -> Response:
        store = self.runtime.store
        record = await store.get_task(task_id)
        if record is None or record.owner != caller.owner:
            return json_response(404, {"error": "no such task", "taskId": task_id})
        letters = record.dead_letters
        notifier = self.runtime.notifier
        qualifying: list[int] = []
        if notifier is not None:
            events = await store.read_events(task_id)
            qualifying = [e.seq for e in events if notifier.qualifies(e.payload)]
        dead = {(d.config_id, d.seq): d for d in letters}
        configs: list[dict[str, Any]] = []
        for stored in await store.list_push_configs(task_id):
            config = stored.config.model_dump()
            config_id = stored.config.id or stored.task_id
            if config.get("token"):
                config["token"] = "•" * 8  # a secret of the client's: shown as set, not what
            auth = config.get("authentication")
            if isinstance(auth, dict) and auth.get("credentials"):
                auth["credentials"] = "•" * 8
            cursor = record.push_cursor(config_id)
            retry = cursor.retry
            deliveries = []
            for seq in qualifying:
                if seq <= (cursor.floor or 0):
                    continue
                letter = dead.get((config_id, seq))
                if letter is not None:
                    status = "redriven" if letter.redriven_at else "dead-lettered"
                elif seq <= cursor.delivered:
                    status = "delivered"
                elif retry is not None and retry.seq == seq:
                    status = "retrying"
                else:
                    status = "pending"
                entry: dict[str, Any] = {"seq": seq, "status": status}
                if status == "retrying" and retry is not None:
                    entry.update(
                        attempts=retry.attempts,
                        nextAt=retry.next_at_ms,
                        lastError=retry.last_error,
                    )
                if letter is not None:
                    entry.update(attempts=letter.attempts, reason=letter.reason)
                deliveries.append(entry)
            configs.append(
                {
                    "id": config_id,
                    "config": config,
                    "cursor": cursor.delivered,
                    "deliveries": deliveries,
                }
            )
        return json_response(
            200,
            {
                "taskId": task_id,
                "lastSeq": record.last_seq,
                "pushNotifications": notifier is not None,
                "notifyOn": self.runtime.settings.push_notify_on,
                "configs": configs,
                "deadLetters": [letter.to_dict() for letter in letters],
            },
        )

    async def _calls(self, task_id: str, caller: Caller) -> Response:
        from ..durable.report import durable_summary

        record = await self.runtime.store.get_task(task_id)
        if record is None or record.owner != caller.owner:
            return json_response(404, {"error": "no such task", "taskId": task_id})
        return json_response(200, {"taskId": task_id, "durable": durable_summary(record)})

    async def _redrive(self, task_id: str, notification_id: str, caller: Caller) -> Response:
        notifier = self.runtime.notifier
        if notifier is None:
            return json_response(409, {"error": "push notifications are not enabled"})
        record = await self.runtime.store.get_task(task_id)
        if record is None or record.owner != caller.owner:
            return json_response(404, {"error": "no such task", "taskId": task_id})
        result = await notifier.redrive(task_id, notification_id)
        status = 404 if result.outcome == "missing" else 200
        return json_response(
            status,
            {
                "outcome": result.outcome,
                "reason": result.reason,
                "deadLetter": None if result.letter is None else result.letter.to_dict(),
            },
        )


def _redirect(location: str) -> Response:
    return Response(308, [(b"location", location.encode()), (b"content-type", b"text/plain")])
