"""Fixtures of the push tests: real webhook receivers on loopback and a wired runtime.

`harness(**settings)` builds a `Runtime` on a memory store and wires a `PushNotifier` into it
the way the app does (commit hook, job handler, set-time URL check, config floor), then lets a
test start tasks that notify a webhook. Settings default to dev mode with tiny back-off, so
retries take milliseconds.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from a2a_serverless import Context, InputRequired, Runtime, Settings, agent, progress
from a2a_serverless.models import (
    AuthenticationInfo,
    Message,
    Part,
    SendMessageConfiguration,
    SendMessageRequest,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a_serverless.push import PushNotifier, generate_key
from a2a_serverless.push.signing import JwtSigner
from a2a_serverless.push.ssrf import Resolver, UrlGuard
from a2a_serverless.service import Caller
from a2a_serverless.store.base import TaskEvent

from .webhook_server import Reply, WebhookServer

FAST: dict[str, Any] = {
    "dev_mode": True,
    "store_url": "memory://",
    "blocking_timeout_s": 5.0,
    "poll_interval_s": 0.02,
    "push_backoff_base_s": 0.01,
    "push_backoff_max_s": 0.05,
    "push_timeout_s": 2.0,
    "push_max_attempts": 5,
    "push_deadline_s": 30.0,
}


@agent(name="Push test agent", description="Finishes, asks for input, or works in steps.")
async def push_agent(context: Context) -> AsyncIterator[Any]:
    """'ask' -> input-required; 'steps N' -> N progress updates then done; else done."""
    text = context.text
    if text == "ask":
        yield InputRequired("Which one?")
        return
    steps = int(text.split()[1]) if text.startswith("steps") else 0
    for i in range(steps):
        yield progress(f"step {i + 1}")
    yield f"done: {text}"


async def _skip(*args: Any, **kwargs: Any) -> None:
    return None


class Harness:
    def __init__(self, runtime: Runtime, notifier: PushNotifier) -> None:
        self.runtime = runtime
        self.notifier = notifier
        self.store = runtime.store
        self.service = runtime.service
        self._messages = 0

    async def send(
        self,
        text: str,
        url: str | None,
        *,
        token: str | None = None,
        authentication: AuthenticationInfo | None = None,
        config_id: str | None = None,
        task_id: str | None = None,
        floor: bool = True,
        check: bool = True,
        protocol: str = "0.3",
    ) -> str:
        """message/send (non-blocking), with a push config unless `url` is None; the task id.

        The service checks the URL and sets the config's floor itself; `check=False` and
        `floor=False` switch those off for this call, to reach states they normally prevent.
        """
        config = None
        if url is not None:
            config = TaskPushNotificationConfig(
                url=url, token=token, authentication=authentication, id=config_id
            )
        self._messages += 1
        message = Message(
            role="user",
            message_id=f"message-{self._messages}",
            parts=[Part(text=text)],
            task_id=task_id,
        )
        params = SendMessageRequest(
            message=message,
            configuration=SendMessageConfiguration(
                return_immediately=True, task_push_notification_config=config
            ),
        )
        notifier: Any = self.notifier
        if not check:
            notifier.check_config_url = _skip
        if not floor:
            notifier.on_config_set = _skip
        try:
            task = await self.service.send_message(params, Caller(), webhook_version=protocol)
        finally:
            for name in ("check_config_url", "on_config_set"):
                notifier.__dict__.pop(name, None)
        return task.id

    async def drain(self, timeout: float = 10.0) -> None:
        await asyncio.wait_for(self.runtime.queue.drain(), timeout)  # type: ignore[attr-defined]

    async def events(self, task_id: str) -> list[TaskEvent]:
        return await self.store.read_events(task_id)

    async def qualifying_seqs(self, task_id: str, after: int = 1) -> list[int]:
        return [
            e.seq
            for e in await self.events(task_id)
            if e.seq > after and self.notifier.qualifies(e.payload)
        ]

    async def state(self, task_id: str) -> TaskState:
        record = await self.store.get_task(task_id)
        assert record is not None
        return record.task.status.state


HarnessFactory = Callable[..., Awaitable[Harness]]
JwksServer = Callable[[PushNotifier], Awaitable[str]]


@pytest.fixture(scope="session")
def signing_keys() -> str:
    return json.dumps([generate_key("ES256")])


@pytest.fixture
async def harness(signing_keys: str) -> AsyncIterator[HarnessFactory]:
    built: list[Harness] = []

    async def factory(
        *,
        resolver: Resolver | None = None,
        ssl_context: Any = None,
        issuer: str | None = None,
        **overrides: Any,
    ) -> Harness:
        values = {**FAST, "push_signing_keys": signing_keys, **overrides}
        settings = Settings(**values)
        runtime = Runtime(push_agent, settings, push_notifications=True)
        notifier = runtime.notifier
        assert notifier is not None, "the runtime should offer push with keys configured"
        # The runtime's own notifier, with what tests control swapped in: a fake resolver
        # (no DNS here), a private CA for the HTTPS receiver, the JWT issuer.
        notifier.guard = UrlGuard(
            dev_mode=settings.dev_mode,
            allowed_domains=settings.push_allowed_domains,
            resolver=resolver,
        )
        notifier.ssl_context = ssl_context
        if issuer is not None:
            notifier.signer = JwtSigner(notifier.keys, issuer=issuer, ttl_s=settings.push_jwt_ttl_s)
        built.append(Harness(runtime, notifier))
        return built[-1]

    yield factory
    for h in built:
        await h.runtime.aclose()


@pytest.fixture
async def webhook() -> AsyncIterator[WebhookServer]:
    server = await WebhookServer().start()
    yield server
    await server.stop()


@pytest.fixture
async def jwks_server() -> AsyncIterator[JwksServer]:
    """Serves a notifier's JWKS over real HTTP; returns its URL."""
    servers: list[WebhookServer] = []

    async def serve(notifier: PushNotifier) -> str:
        def reply(_request: Any) -> Reply:
            body = json.dumps(notifier.jwks_document()).encode()
            return Reply(200, {"Content-Type": "application/json"}, body)

        server = await WebhookServer(reply).start()
        servers.append(server)
        url: str = server.url("/.well-known/jwks.json")
        return url

    yield serve
    for server in servers:
        await server.stop()
