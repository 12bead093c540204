"""Interop with credentials: the official a2a-sdk 0.3.26 client over HTTP+JSON/REST with an
API key and with a bearer token, against our dev server over real HTTP, configured as a
deployment is (A2A_AUTH_* variables).

How the SDK sends credentials depends on its transport. Its `AuthInterceptor` reads the card's
`security` and `securitySchemes` and puts each credential where the card says (the API key's
header; `Authorization: Bearer`) — but in 0.3.26 only the JSON-RPC transport applies
interceptors (`RestTransport._apply_interceptors` is a TODO that returns its input). Over REST
the SDK's way is headers on the `httpx.AsyncClient` it is given. So REST is tested with client
headers, and the interceptor once over JSON-RPC, which also shows that what our card declares is
enough for a client to find where credentials go.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.client.auth import AuthInterceptor, CredentialService
from a2a.client.errors import A2AClientHTTPError
from a2a.client.middleware import ClientCallContext
from a2a.client.transports.rest import RestTransport
from a2a.types import (
    AgentCard,
    Message,
    Part,
    Role,
    Task,
    TaskQueryParams,
    TaskState,
    TextPart,
    TransportProtocol,
)
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.interop.test_sdk03 import artifact_text, send_one
from tests.support.server import LiveServer

pytestmark = pytest.mark.interop

GUARDED_APP = "tests.interop.agents:guarded_app"
API_KEY = "interop-key-0123456789abcdef"
ISSUER = "https://issuer.example.com"
AUDIENCE = "https://agent.example.com"
SIGNING = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PUBLIC_PEM = (
    SIGNING.public_key()
    .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    .decode()
)


def bearer_token(subject: str = "carol", *scopes: str) -> str:
    now = int(time.time())
    claims: dict[str, Any] = {"iss": ISSUER, "aud": AUDIENCE, "sub": subject, "iat": now}
    claims["exp"] = now + 600
    if scopes:
        claims["scope"] = " ".join(scopes)
    return jwt.encode(claims, SIGNING, algorithm="RS256")


class StaticCredentials(CredentialService):
    """Credentials by scheme name, the same for every call (a service account's)."""

    def __init__(self, **by_scheme: str) -> None:
        self.by_scheme = by_scheme

    async def get_credentials(
        self, security_scheme_name: str, context: ClientCallContext | None
    ) -> str | None:
        return self.by_scheme.get(security_scheme_name)


@pytest.fixture
def server(live_server: Callable[..., LiveServer], tmp_path: Path) -> Iterator[LiveServer]:
    served = live_server(
        GUARDED_APP,
        A2A_STORE_URL=f"sqlite:///{tmp_path / 'tasks.db'}",
        A2A_AUTH_API_KEYS=f"{API_KEY}=bot",
        A2A_AUTH_JWT_ISSUER=ISSUER,
        A2A_AUTH_JWT_AUDIENCE=AUDIENCE,
        A2A_AUTH_JWT_KEYS=PUBLIC_PEM,
    )
    yield served
    print(f"--- dev server log ---\n{served.log()}")


def api_key(value: str = API_KEY) -> dict[str, str]:
    return {"X-API-Key": value}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@asynccontextmanager
async def connect(
    server: LiveServer, headers: dict[str, str] | None, *, streaming: bool = False
) -> AsyncIterator[tuple[Client, AgentCard]]:
    """A REST-only Client whose httpx client sends `headers` (credentials) on every call."""
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0), headers=headers) as http:
        card = await A2ACardResolver(http, server.url).get_agent_card()
        config = ClientConfig(
            httpx_client=http,
            streaming=streaming,
            supported_transports=[TransportProtocol.http_json],
        )
        client = ClientFactory(config).create(card)
        assert isinstance(client._transport, RestTransport)  # type: ignore[attr-defined]
        yield client, card


def message(text: str, **metadata: Any) -> Message:
    return Message(
        role=Role.user,
        message_id=uuid.uuid4().hex,
        parts=[Part(root=TextPart(text=text))],
        metadata=metadata or None,
    )


async def test_card_declares_both_schemes_publicly(server: LiveServer) -> None:
    async with connect(server, None) as (_client, card):
        assert card.security_schemes is not None
        assert set(card.security_schemes) == {"apiKey", "bearer"}
        assert card.security == [{"apiKey": []}, {"bearer": []}]
        assert card.supports_authenticated_extended_card is True


async def test_without_credentials_the_sdk_gets_401(server: LiveServer) -> None:
    async with connect(server, None) as (client, _card):
        with pytest.raises(A2AClientHTTPError) as refused:
            await send_one(client, message("hello"))
        assert refused.value.status_code == 401


@pytest.mark.parametrize("scheme", ["apiKey", "bearer"])
async def test_the_sdk_authenticates_and_uses_every_call(server: LiveServer, scheme: str) -> None:
    headers = api_key() if scheme == "apiKey" else bearer(bearer_token())
    async with connect(server, headers) as (client, _card):
        task = await send_one(client, message("hello"))
        assert isinstance(task, Task)
        assert task.status.state == TaskState.completed
        assert artifact_text(task) == "echo: hello"
        fetched = await client.get_task(TaskQueryParams(id=task.id))
        assert fetched.status.state == TaskState.completed
        # The authenticated extended card, fetched with the same credentials: the admin skill
        # is listed only for callers whose scopes allow it.
        extended = await client.get_card()
        assert [s.id for s in extended.skills] == ["echo"]


async def test_the_sdk_streams_with_a_bearer_token(server: LiveServer) -> None:
    async with connect(server, bearer(bearer_token()), streaming=True) as (client, _card):
        updates = [update async for update in client.send_message(message("streamed"))]
    task, _event = updates[-1]  # type: ignore[misc]
    assert task.status.state == TaskState.completed
    assert artifact_text(task) == "echo: streamed"


async def test_identities_do_not_see_each_others_tasks(server: LiveServer) -> None:
    async with connect(server, api_key()) as (bot, _card):
        task = await send_one(bot, message("mine"))
    async with connect(server, bearer(bearer_token("mallory"))) as (other, _):
        with pytest.raises(A2AClientHTTPError) as hidden:
            await other.get_task(TaskQueryParams(id=task.id))
        assert hidden.value.status_code == 404


async def test_a_skill_scope_is_enforced_for_the_sdk(server: LiveServer) -> None:
    admin = bearer(bearer_token("dana", "interop:admin"))
    async with connect(server, admin) as (client, card):
        assert [s.id for s in card.skills] == ["echo"]
        assert [s.id for s in (await client.get_card()).skills] == ["echo", "admin"]
        task = await send_one(client, message("reboot", skillId="admin"))
        assert artifact_text(task) == "admin: reboot"
    async with connect(server, bearer(bearer_token("dana"))) as (client, _card):
        with pytest.raises(A2AClientHTTPError) as refused:
            await send_one(client, message("reboot", skillId="admin"))
        assert refused.value.status_code == 403
        task = await send_one(client, message("hi", skillId="echo"))
        assert artifact_text(task) == "echo: hi"


@pytest.mark.parametrize("scheme", ["apiKey", "bearer"])
async def test_the_sdk_auth_interceptor_finds_where_credentials_go(
    server: LiveServer, scheme: str
) -> None:
    """Over JSON-RPC (where 0.3.26 applies interceptors): only the card tells the SDK where
    each credential goes."""
    credential = API_KEY if scheme == "apiKey" else bearer_token()
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as http:
        card = await A2ACardResolver(http, server.url).get_agent_card()
        config = ClientConfig(httpx_client=http, streaming=False)
        interceptor = AuthInterceptor(StaticCredentials(**{scheme: credential}))
        client = ClientFactory(config).create(card, interceptors=[interceptor])
        task = await send_one(client, message("via interceptor"))
        assert artifact_text(task) == "echo: via interceptor"
        anonymous = ClientFactory(config).create(card)
        with pytest.raises(A2AClientHTTPError) as refused:
            await send_one(anonymous, message("no credentials"))
        assert refused.value.status_code == 401
