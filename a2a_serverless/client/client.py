"""`A2AClient`: call a remote A2A agent, 1.0 or 0.3, over JSON-RPC or HTTP+JSON.

    client = await A2AClient.connect("https://agent.example.com")
    print(client.interface)          # Interface(url=..., version="1.0", binding="JSONRPC")
    task = await client.send("hello")
    async for event in client.stream("hello"):
        ...

Made from a URL (the card is fetched, `discovery.py`) or a card already in hand; it speaks the
interface `discovery.choose` picks and says which (`interface`). Every operation takes and
returns the kit's models (`models.py`); an agent's error is raised as the kit's error class,
whatever carried it (`errors.py`).

Safety: timeouts and sizes are `ClientLimits`'; a request is sent again (after a connection
failure, 502/503/504 or 429) only when that is safe: reads, and a send, which carries the same
messageId (the agent de-duplicates by it); never a cancel or a push config created. A stream
that drops is resumed with `Last-Event-ID` (the same request again, from after the last event
received). Each request carries the current W3C trace context (`traceparent`), or a new one,
so one trace spans both agents.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from .. import models as m
from .. import tracing
from ..errors import A2AError, AuthorizationError, InvalidAgentResponseError
from ..extras import require_client
from ..ids import random_uuid
from .auth import Credential, CredentialOptions, OutgoingRequest, credential_for
from .discovery import Interface, card_url, check_data_url, choose, fetch_card
from .errors import AgentUnreachable, HTTPStatusError, from_jsonrpc, from_rest
from .transport import (
    ClientLimits,
    HttpAnswer,
    fetch,
    read_bounded,
    shared_http,
    sse_events,
    timeout,
)
from .wire import VERSION_HEADER, Binding, Call, Operation, Version, WireRequest, wire_for

if TYPE_CHECKING:
    import httpx

# What a MissingExtra names when httpx (the `client` extra) is not installed.
CLIENT_FEATURE = "the A2A client (a2a_serverless.client)"
RETRY_STATUSES = frozenset({429, 502, 503, 504})
# Resending these cannot do a thing twice.
SAFE_TO_RESEND: frozenset[str] = frozenset(
    {"send", "get", "list", "push_get", "push_list", "push_delete", "extended_card"}
)
MAX_RETRY_AFTER_S = 10.0
# Operations whose HTTP+JSON route names a task: a bare 404 there is TaskNotFound.
TASK_OPERATIONS: frozenset[str] = frozenset(
    {"get", "cancel", "subscribe", "push_set", "push_get", "push_list", "push_delete"}
)


def text_message(
    text: str,
    *,
    task_id: str | None = None,
    context_id: str | None = None,
    files: Sequence[m.Part] = (),
) -> m.Message:
    """A user message of `text` (and files), continuing a task or a context when given."""
    parts: list[m.Part] = [m.Part(text=text)] if text else []
    parts.extend(files)
    return m.Message(
        message_id=random_uuid(),
        role="user",
        parts=parts,
        task_id=task_id,
        context_id=context_id,
    )


class A2AClient:
    def __init__(
        self,
        card: dict[str, Any],
        interface: Interface,
        *,
        credential: Credential | None = None,
        limits: ClientLimits | None = None,
    ) -> None:
        require_client(CLIENT_FEATURE)
        self.card = card
        self.interface = interface
        self.credential = credential
        self.limits = limits or ClientLimits()
        self._wire = wire_for(interface.version, interface.binding)

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        card: dict[str, Any] | None = None,
        binding: Binding | None = None,
        version: Version | None = None,
        interface: Interface | None = None,
        credentials: CredentialOptions | Credential | None = None,
        limits: ClientLimits | None = None,
        allow_private_urls: bool = False,
    ) -> A2AClient:
        """A client for the agent at `url` (its base URL or its card's URL), or of `card`.

        `binding` is the preferred binding (JSON-RPC or HTTP+JSON); `version` keeps the client
        to one version; `interface`, one of the card's, is used as it is. `credentials` are
        options to pick a credential from the card's schemes with, or a credential.
        `allow_private_urls` lets a card's interface URLs on another origin than `url` be
        loopback or private addresses (development).
        """
        require_client(CLIENT_FEATURE)
        limits = limits or ClientLimits()
        if card is None:
            card = await load_card(url, credentials, limits=limits)
        if interface is None:
            interface = choose(card, binding=binding, version=version)
        await check_data_url(interface.url, url, allow_private=allow_private_urls)
        credential: Credential | None
        if isinstance(credentials, CredentialOptions):
            credential = await credential_for(
                card,
                credentials,
                configured_url=url,
                allow_private=allow_private_urls,
                limits=limits,
            )
        else:
            credential = credentials
        return cls(card, interface, credential=credential, limits=limits)

    @property
    def streaming(self) -> bool:
        """Whether the agent's card says it streams."""
        return bool((self.card.get("capabilities") or {}).get("streaming"))

    # --- operations --------------------------------------------------------------------------

    async def send(
        self,
        message: m.Message | str,
        *,
        blocking: bool = True,
        history_length: int | None = None,
        push: m.TaskPushNotificationConfig | None = None,
        accepted_output_modes: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> m.Task | m.Message:
        params = _send_params(
            message, blocking, history_length, push, accepted_output_modes, metadata
        )
        result: m.Task | m.Message = await self._call(Call("send", send=params))
        return result

    def stream(
        self,
        message: m.Message | str,
        *,
        history_length: int | None = None,
        push: m.TaskPushNotificationConfig | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> AsyncIterator[m.StreamResult]:
        params = _send_params(message, True, history_length, push, None, metadata)
        return self._stream(Call("stream", send=params))

    async def get_task(self, task_id: str, *, history_length: int | None = None) -> m.Task:
        task: m.Task = await self._call(Call("get", task_id=task_id, history_length=history_length))
        return task

    async def list_tasks(self, params: m.ListTasksRequest | None = None) -> m.ListTasksResponse:
        result: m.ListTasksResponse = await self._call(Call("list", list_params=params))
        return result

    async def cancel_task(self, task_id: str) -> m.Task:
        task: m.Task = await self._call(Call("cancel", task_id=task_id))
        return task

    def subscribe(self, task_id: str) -> AsyncIterator[m.StreamResult]:
        """The task's events from now (1.0's SubscribeToTask, 0.3's tasks/resubscribe)."""
        return self._stream(Call("subscribe", task_id=task_id))

    async def set_push_config(
        self, task_id: str, config: m.TaskPushNotificationConfig
    ) -> m.TaskPushNotificationConfig:
        found: m.TaskPushNotificationConfig = await self._call(
            Call("push_set", task_id=task_id, push=config)
        )
        return found

    async def get_push_config(
        self, task_id: str, config_id: str | None = None
    ) -> m.TaskPushNotificationConfig:
        found: m.TaskPushNotificationConfig = await self._call(
            Call("push_get", task_id=task_id, config_id=config_id)
        )
        return found

    async def list_push_configs(self, task_id: str) -> list[m.TaskPushNotificationConfig]:
        found: list[m.TaskPushNotificationConfig] = await self._call(
            Call("push_list", task_id=task_id)
        )
        return found

    async def delete_push_config(self, task_id: str, config_id: str) -> None:
        await self._call(Call("push_delete", task_id=task_id, config_id=config_id))

    async def extended_card(self) -> dict[str, Any]:
        """The authenticated extended card (the credential decides what it shows)."""
        card: dict[str, Any] = await self._call(Call("extended_card"))
        return card

    async def raw(
        self, method: str, path: str, body: Any = None, *, authorized: bool = True
    ) -> HttpAnswer:
        """One request as given on the interface (`path` under its URL, "" for JSON-RPC), with
        the version's header, the trace context and, unless `authorized` is false, the
        credential; its answer unread. For probing an agent (`check.py`), not for A2A calls."""
        headers = {VERSION_HEADER: "1.0"} if self.interface.version == "1.0" else {}
        request = WireRequest(method, path, body, headers=headers)
        return await self._send_once(request, authorized=authorized)

    # --- the wire ----------------------------------------------------------------------------

    async def _outgoing(
        self, request: WireRequest, *, stream: bool, authorized: bool = True
    ) -> OutgoingRequest:
        url = self.interface.url.rstrip("/") + request.path if request.path else self.interface.url
        if request.query:
            url += "?" + urlencode(request.query)
        headers = {
            "Accept": "text/event-stream" if stream else "application/json",
            **request.headers,
            **_trace_headers(),
        }
        body = b""
        if request.json is not None:
            body = json.dumps(request.json, separators=(",", ":")).encode()
            headers["Content-Type"] = "application/json"
        outgoing = OutgoingRequest(request.method, url, headers, body)
        if self.credential is not None and authorized:
            await self.credential.apply(outgoing)
        return outgoing

    async def _send_once(self, request: WireRequest, *, authorized: bool = True) -> HttpAnswer:
        """One request, in its own CLIENT span (with spans on) whose context it carries."""
        with tracing.client_request(request.method, self._span_url(request)) as span:
            outgoing = await self._outgoing(request, stream=False, authorized=authorized)
            answer = await fetch(
                outgoing.method,
                outgoing.url,
                headers=outgoing.headers,
                content=outgoing.body or None,
                limits=self.limits,
            )
            span.set_attribute("http.response.status_code", answer.status)
            return answer

    def _span_url(self, request: WireRequest) -> str:
        # Without the query: an API key may travel there.
        return self.interface.url.rstrip("/") + request.path if request.path else self.interface.url

    async def _call(self, call: Call) -> Any:
        request = self._wire.request(call, _request_id())
        attempts = 1 + (self.limits.retries if call.op in SAFE_TO_RESEND else 0)
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                answer = await self._send_once(request)
            except AgentUnreachable:
                if last:
                    raise
                continue
            if answer.status in RETRY_STATUSES and not last:
                await _pause(answer.headers.get("retry-after"))
                continue
            return self._read(call.op, answer.status, answer.headers, answer.body)
        raise AssertionError("unreachable")  # pragma: no cover

    def _read(self, op: Operation, status: int, headers: httpx.Headers, body: bytes) -> Any:
        try:
            document = json.loads(body) if body else None
        except ValueError:
            document = None
        if self.interface.binding == "JSONRPC":
            if isinstance(document, dict) and "error" in document:
                raise _with_challenge(from_jsonrpc(document["error"], status), headers)
            if status != 200 or not isinstance(document, dict):
                raise _http_failure(status, headers, body)
            if "result" not in document:
                # A null result left out (the 0.3 SDK's server does, for a deleted config).
                if op == "push_delete":
                    return None
                raise _http_failure(status, headers, body)
            return self._wire.result(op, document["result"])
        if status >= 400:
            error = from_rest(status, document, names_task=op in TASK_OPERATIONS)
            if error is None:
                raise _http_failure(status, headers, body)
            raise _with_challenge(error, headers)
        if op == "push_delete":
            return None
        if document is None:
            raise InvalidAgentResponseError(f"The agent's {op} answer is not JSON (HTTP {status})")
        return self._wire.result(op, document)

    async def _stream(self, call: Call) -> AsyncIterator[m.StreamResult]:
        import httpx

        request = self._wire.request(call, _request_id())
        last_event_id: str | None = None
        resumes = self.limits.stream_resumes
        while True:
            client = shared_http()
            try:
                # The span covers the request until its answer starts, not the whole stream:
                # a span's context must not leak to the caller between events.
                with tracing.client_request(request.method, self._span_url(request)):
                    outgoing = await self._outgoing(request, stream=True)
                    if last_event_id is not None:
                        outgoing.headers["Last-Event-ID"] = last_event_id
                    response = await client.send(
                        client.build_request(
                            outgoing.method,
                            outgoing.url,
                            headers=outgoing.headers,
                            content=outgoing.body or None,
                            timeout=timeout(self.limits, stream=True),
                        ),
                        stream=True,
                    )
            except httpx.TransportError as exc:
                if resumes > 0 and last_event_id is not None:
                    resumes -= 1
                    continue
                raise AgentUnreachable(f"{outgoing.url}: {type(exc).__name__}: {exc}") from None
            try:
                content_type = response.headers.get("content-type", "")
                if not content_type.startswith("text/event-stream"):
                    body = await read_bounded(
                        response, self.limits.max_response_bytes, "max_response_bytes"
                    )
                    self._read(call.op, response.status_code, response.headers, body)
                    raise InvalidAgentResponseError(
                        f"The agent answered a stream request with {content_type or 'no type'}"
                    )
                ended = False
                async for event in sse_events(response, self.limits.max_event_bytes):
                    if event.id is not None:
                        last_event_id = event.id
                    result = self._event(event.event, event.data)
                    yield result
                    if _ends_stream(result):
                        ended = True
                        break
                if ended or last_event_id is None or resumes <= 0:
                    return
                # The server closed without a final event: resume after the last one.
                resumes -= 1
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.ReadTimeout) as exc:
                if last_event_id is None or resumes <= 0:
                    raise AgentUnreachable(
                        f"{outgoing.url}: the stream broke: {type(exc).__name__}"
                    ) from None
                resumes -= 1
            finally:
                await response.aclose()

    def _event(self, kind: str, data: str) -> m.StreamResult:
        try:
            document = json.loads(data)
        except ValueError:
            raise InvalidAgentResponseError(
                "The agent sent a stream event that is not JSON"
            ) from None
        if self.interface.binding == "JSONRPC":
            if isinstance(document, dict) and "error" in document:
                raise from_jsonrpc(document["error"])
            if not isinstance(document, dict) or "result" not in document:
                raise InvalidAgentResponseError("The agent sent a stream event without a result")
            return self._wire.event(document["result"])
        if kind == "error" or (isinstance(document, dict) and "error" in document):
            error = from_rest(400, document, names_task=True)
            raise error or InvalidAgentResponseError("The agent sent a malformed error event")
        return self._wire.event(document)


async def load_card(
    url: str,
    credentials: CredentialOptions | Credential | None = None,
    *,
    limits: ClientLimits | None = None,
) -> dict[str, Any]:
    """The card of the agent at `url`; when it is not public (401), asked again with the
    caller's credential, put where it goes without a card to say (an API key in `X-API-Key`,
    a token in `Authorization`)."""
    try:
        return await fetch_card(url, limits=limits)
    except HTTPStatusError as refused:
        if refused.status != 401 or credentials is None:
            raise
        credential = (
            await credential_for({}, credentials, configured_url=url, limits=limits)
            if isinstance(credentials, CredentialOptions)
            else credentials
        )
        if credential is None:
            raise
        request = OutgoingRequest("GET", card_url(url), {}, b"")
        await credential.apply(request)
        return await fetch_card(request.url, headers=request.headers, limits=limits)


def _send_params(
    message: m.Message | str,
    blocking: bool,
    history_length: int | None,
    push: m.TaskPushNotificationConfig | None,
    accepted_output_modes: list[str] | None,
    metadata: dict[str, Any] | None,
) -> m.SendMessageRequest:
    if isinstance(message, str):
        message = text_message(message)
    return m.SendMessageRequest(
        message=message,
        configuration=m.SendMessageConfiguration(
            accepted_output_modes=accepted_output_modes,
            task_push_notification_config=push,
            history_length=history_length,
            return_immediately=not blocking,
        ),
        metadata=metadata,
    )


def _ends_stream(result: m.StreamResult) -> bool:
    if isinstance(result, m.Message):
        return True
    if isinstance(result, m.TaskStatusUpdateEvent | m.Task):
        return result.status.state.ends_stream
    return False


def _request_id() -> str:
    return random_uuid()


def _trace_headers() -> dict[str, str]:
    """The current trace context's headers, or a new trace's (not sampled: nothing here
    records it) when there is none."""
    context = tracing.current()
    if context is not None:
        return context.headers()
    return {"traceparent": f"00-{os.urandom(16).hex()}-{os.urandom(8).hex()}-00"}


def _http_failure(status: int, headers: httpx.Headers, body: bytes) -> Exception:
    if status in (401, 403):
        error = AuthorizationError("Unauthorized" if status == 401 else "Forbidden", status=status)
        return _with_challenge(error, headers)
    if 200 <= status < 300:
        return InvalidAgentResponseError(
            f"The agent's answer is not a JSON-RPC response (HTTP {status})"
        )
    snippet = body[:200].decode("utf-8", errors="replace")
    return HTTPStatusError(status, snippet or "no body")


def _with_challenge(error: A2AError, headers: httpx.Headers) -> A2AError:
    challenge = headers.get("www-authenticate")
    if challenge:
        error.headers = [(b"www-authenticate", challenge.encode())]
    return error


async def _pause(retry_after: str | None) -> None:
    import asyncio

    delay = 0.2
    if retry_after and retry_after.strip().isdigit():
        delay = min(float(retry_after.strip()), MAX_RETRY_AFTER_S)
    await asyncio.sleep(delay)


__all__ = ["A2AClient", "text_message"]
