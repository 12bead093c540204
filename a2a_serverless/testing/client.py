"""`AgentTestClient`: an A2A client for an agent's tests, talking to it in-process.

    async with AgentTestClient(echo) as client:          # an Agent, an app, or any ASGI app
        task = await client.send("hello")                 # a Task (or the agent's Message)
        assert await client.send_text("hello") == "You said: hello"

It speaks either protocol version (`version="0.3"`, the default, or `"1.0"`) over either binding
(`binding="jsonrpc"` or `"rest"`, HTTP+JSON), the way a remote client would: every call is an
HTTP request to the app over `httpx.ASGITransport` (no network, no server), so the route table,
authentication and the transport's wire form are all exercised. Results come back as the kit's
own typed models (`a2a_serverless.models.Task` / `Message`), whatever the version on the wire, so
one test reads the same under 0.3 and 1.0. An error answer raises `A2AClientError` with its
JSON-RPC code (or HTTP status) and message.

An `Agent` gets its own app on an in-memory store with the in-process queue running each turn
(`Settings(store_url="memory://", dev_mode=True)` unless `settings=` says otherwise), closed when
the client is. An app is used as given: a Starlette/FastAPI app's lifespan runs for the client's
life (which starts a mounted agent's runtime); put a mounted agent's prefix in `base_url`.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any, Literal, Self

import httpx

from ..agent import Agent
from ..app import create_app
from ..asgi import A2AApplication
from ..codec import convert
from ..config import Settings
from ..exceptions import A2AServerlessError
from ..models import Artifact, Message, Part, Task, TaskStatus
from ..routepaths import CARD_PATH
from ..v03 import convert as v03convert
from ..v03 import jsonrpc_convert
from ..v03 import jsonrpc_models as rpc
from ..v03 import jsonrpc_params as v03rpc
from ..v03 import models as v03
from ..v10 import convert as v10convert
from ..v10 import models as v10

Version = Literal["0.3", "1.0"]
Binding = Literal["jsonrpc", "rest"]
_METHODS: dict[Version, dict[str, str]] = {
    "0.3": {"send": "message/send", "get": "tasks/get", "cancel": "tasks/cancel"},
    "1.0": {"send": "SendMessage", "get": "GetTask", "cancel": "CancelTask"},
}


class A2AClientError(A2AServerlessError):
    """The agent answered with an error: its JSON-RPC `code` (None over HTTP+JSON, which has
    `status`), `message`, `data` and the HTTP status."""

    def __init__(self, message: str, *, code: int | None, status: int, data: Any = None) -> None:
        super().__init__(f"{message} (code {code}, HTTP {status})")
        self.message = message
        self.code = code
        self.status = status
        self.data = data


class AgentTestClient:
    """An A2A client for tests, over ASGI; see the module's docstring."""

    def __init__(
        self,
        target: Agent | A2AApplication | Any,
        *,
        version: Version = "0.3",
        binding: Binding = "jsonrpc",
        settings: Settings | None = None,
        base_url: str = "http://testserver",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        if version not in _METHODS:
            raise ValueError(f"version must be '0.3' or '1.0', not {version!r}")
        if binding not in ("jsonrpc", "rest"):
            raise ValueError(f"binding must be 'jsonrpc' or 'rest', not {binding!r}")
        self.version: Version = version
        self.binding: Binding = binding
        self._owned: A2AApplication | None = None
        if isinstance(target, Agent):
            self._owned = create_app(
                target, settings or Settings(store_url="memory://", dev_mode=True)
            )
            target = self._owned
        elif settings is not None:
            raise ValueError("settings= applies to an Agent; an app already has its settings")
        self.app: Any = target
        extra = {"A2A-Version": "1.0"} if version == "1.0" else {}
        self.http = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=target),
            base_url=base_url.rstrip("/"),
            headers={**extra, **(headers or {})},
        )
        self._stack = AsyncExitStack()
        self._ids = 0

    async def __aenter__(self) -> Self:
        router = getattr(self.app, "router", None)
        lifespan = getattr(router, "lifespan_context", None)
        if lifespan is not None:
            # Starlette and FastAPI start what they hold (a mounted agent's runtime) there.
            await self._stack.enter_async_context(lifespan(self.app))
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()
        await self._stack.aclose()
        if self._owned is not None:
            await self._owned.runtime.aclose()

    # --- the A2A methods -------------------------------------------------------------------

    async def card(self) -> dict[str, Any]:
        """The agent card, as JSON."""
        response = await self.http.get(CARD_PATH)
        return self._json(response)  # type: ignore[no-any-return]

    async def send(
        self,
        message: str | Sequence[Part] | Message,
        *,
        task_id: str | None = None,
        context_id: str | None = None,
        blocking: bool = True,
        metadata: dict[str, Any] | None = None,
    ) -> Task | Message:
        """Send a user message (text, parts, or a whole `Message`): the task it started or
        continued, or the agent's direct reply. `blocking=False` returns once the turn is
        queued."""
        if not isinstance(message, Message):
            parts: list[Part] = [Part(text=message)] if isinstance(message, str) else list(message)
            message = Message(
                message_id=str(uuid.uuid4()),
                role="user",
                parts=parts,
                task_id=task_id,
                context_id=context_id,
            )
        params: dict[str, Any]
        if self.version == "1.0":
            params = {
                "message": v10convert.message_out(message),
                "configuration": {"returnImmediately": not blocking},
            }
        else:
            params = {
                "message": jsonrpc_convert.message_out(message),
                "configuration": {"blocking": blocking},
            }
        if metadata is not None:
            params["metadata"] = metadata
        if self.binding == "jsonrpc":
            return self._send_result(await self._call("send", params))
        if self.version == "1.0":
            return self._send_result(await self._rest("POST", "/message:send", params))
        # 0.3's HTTP+JSON speaks the proto JSON of its a2a.proto (v03/convert.py).
        request = v03rpc.send_request_in(convert(params, v03rpc.MessageSendParams))
        body = v03convert.send_params_out(request)
        reply = await self._rest("POST", "/v1/message:send", body)
        return v03convert.send_result_in(v03.read(v03.SendMessageResponse, reply, "response"))

    async def send_text(self, text: str, **options: Any) -> str:
        """Send `text`; the reply's text (`reply_text` of what `send` returns)."""
        return reply_text(await self.send(text, **options))

    async def get_task(self, task_id: str, *, history_length: int | None = None) -> Task:
        params: dict[str, Any] = {"id": task_id}
        if history_length is not None:
            params["historyLength"] = history_length
        if self.binding == "jsonrpc":
            result = await self._call("get", params)
        else:
            query = {} if history_length is None else {"historyLength": str(history_length)}
            result = await self._rest("GET", self._rest_path(f"tasks/{task_id}"), None, query)
        return self._task(result)

    async def cancel_task(self, task_id: str) -> Task:
        if self.binding == "jsonrpc":
            result = await self._call("cancel", {"id": task_id})
        else:
            result = await self._rest("POST", self._rest_path(f"tasks/{task_id}:cancel"), {})
        return self._task(result)

    # --- the wire ----------------------------------------------------------------------------

    def _rest_path(self, route: str) -> str:
        # 0.3's HTTP+JSON routes are under /v1/; 1.0's have no prefix.
        return f"/v1/{route}" if self.version == "0.3" else f"/{route}"

    async def _call(self, method: str, params: dict[str, Any]) -> Any:
        self._ids += 1
        body = {
            "jsonrpc": "2.0",
            "id": self._ids,
            "method": _METHODS[self.version][method],
            "params": params,
        }
        response = await self.http.post("/", json=body)
        answer = self._json(response)
        error = answer.get("error")
        if error is not None:
            raise A2AClientError(
                str(error.get("message", "")),
                code=error.get("code"),
                status=response.status_code,
                data=error.get("data"),
            )
        return answer["result"]

    async def _rest(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        query: dict[str, str] | None = None,
    ) -> Any:
        response = await self.http.request(method, path, json=body, params=query)
        answer = self._json(response)
        if response.status_code >= 400:
            # {"error": {code, status, message, data}} (0.3) or a google.rpc.Status (1.0).
            error = answer.get("error", answer) if isinstance(answer, dict) else {}
            code = error.get("code") if self.version == "0.3" else None
            raise A2AClientError(
                str(error.get("message", response.reason_phrase)),
                code=code if isinstance(code, int) else None,
                status=response.status_code,
                data=error.get("data", error.get("details")),
            )
        return answer

    @staticmethod
    def _json(response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError:
            raise A2AClientError(
                f"not a JSON answer: {response.text[:200]!r}",
                code=None,
                status=response.status_code,
            ) from None

    def _send_result(self, result: Any) -> Task | Message:
        if self.version == "0.3":
            read = convert(result, rpc.Task | rpc.Message)  # type: ignore[arg-type]
            return jsonrpc_convert.stream_result_in(read)  # type: ignore[return-value]
        if "message" in result:
            return _message_from_v1(result["message"])
        return _task_from_v1(result["task"])

    def _task(self, result: Any) -> Task:
        if self.version == "0.3" and self.binding == "rest":
            return v03convert.task_in(v03.read(v03.Task, result, "task"))
        if self.version == "0.3":
            return jsonrpc_convert.task_in(convert(result, rpc.Task))
        return _task_from_v1(result)


def reply_text(reply: Task | Message) -> str:
    """The text of a reply: a message's text parts, or a task's artifacts' text parts (its
    status message's when it has no artifact, as when it asks for input), joined."""
    if isinstance(reply, Message):
        return _text(reply.parts)
    artifacts = reply.artifacts or []
    if artifacts:
        return "".join(_text(artifact.parts) for artifact in artifacts)
    message = reply.status.message
    return "" if message is None else _text(message.parts)


def _text(parts: Sequence[Part]) -> str:
    return "".join(part.text for part in parts if part.text is not None)


# 1.0's wire form back into the kit's models (v10/convert.py goes the other way for these).


def _message_from_v1(data: dict[str, Any]) -> Message:
    return v10convert.message_in(convert(data, v10.Message))


def _task_from_v1(data: dict[str, Any]) -> Task:
    status = data["status"]
    message = status.get("message")
    return Task(
        id=data["id"],
        context_id=data["contextId"],
        status=TaskStatus(
            state=v10convert.state_in(status["state"]),
            message=None if message is None else _message_from_v1(message),
            timestamp=status.get("timestamp"),
        ),
        artifacts=(
            None
            if "artifacts" not in data
            else [
                Artifact(
                    artifact_id=a["artifactId"],
                    parts=[
                        v10convert.part_in(convert(p, v10.Part), f"artifacts.parts.{i}")
                        for i, p in enumerate(a["parts"])
                    ],
                    name=a.get("name"),
                    description=a.get("description"),
                    extensions=a.get("extensions"),
                    metadata=a.get("metadata"),
                )
                for a in data["artifacts"]
            ]
        ),
        history=(None if "history" not in data else [_message_from_v1(m) for m in data["history"]]),
        metadata=data.get("metadata"),
    )
