"""Remote agents an agent may call in its turn: `ctx.remote("weather")`.

Named in code (`Agent(remote_agents={"weather": "https://weather.example.com"})`, or a
`RemoteAgent` with its credentials) or in settings (A2A_REMOTE_AGENTS, a JSON object, each name
with a URL or an object: `{"weather": "https://...", "billing": {"url": "https://...",
"apiKey": "ssm:/agent/billing-key"}}`; the object's other members are `bearerToken`,
`oauthClientId`, `oauthClientSecret`, `oauthTokenUrl`, `oauthScopes`, `googleAudience`,
`sigv4Service`, `sigv4Region`, `binding`, `version`, each secret also a reference). Code wins
over settings for the same name. The Runtime builds them only when some are configured, so an
agent that calls none never imports the client.

Each `RemoteAgent` connects on its first use (the card fetched, the interface chosen, the
credential's secrets read) and keeps its `A2AClient`; calls made in a turn carry the turn's
trace context. `ask(text)` is the one-line call: the reply's text, or `RemoteTaskFailed` when
the remote task ended failed, rejected or canceled.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping

from .. import models as m
from .. import turn
from ..errors import A2AError
from .auth import Credential, CredentialOptions
from .client import A2AClient, text_message
from .wire import Binding, Version

SETTING = "A2A_REMOTE_AGENTS"
# A2A_REMOTE_AGENTS members -> CredentialOptions fields.
_CREDENTIAL_KEYS = {
    "apiKey": "api_key",
    "bearerToken": "bearer_token",
    "oauthClientId": "oauth_client_id",
    "oauthClientSecret": "oauth_client_secret",
    "oauthTokenUrl": "oauth_token_url",
    "googleAudience": "google_audience",
    "sigv4Service": "sigv4_service",
    "sigv4Region": "sigv4_region",
}
UNSUCCESSFUL = {m.TaskState.FAILED, m.TaskState.REJECTED, m.TaskState.CANCELED}


class RemoteTaskFailed(A2AError):
    """The remote agent's task ended failed, rejected or canceled; `task` is it."""

    def __init__(self, name: str, task: m.Task) -> None:
        reason = _text(task.status.message.parts) if task.status.message else ""
        super().__init__(
            f"remote agent {name!r}: task {task.id} {task.status.state.value}"
            + (f": {reason}" if reason else "")
        )
        self.task = task


class RemoteAgent:
    """One configured remote agent (see the module)."""

    def __init__(
        self,
        url: str,
        *,
        credentials: CredentialOptions | Credential | None = None,
        binding: Binding | None = None,
        version: Version | None = None,
        name: str = "",
    ) -> None:
        self.url = url
        self.name = name or url
        self.credentials = credentials
        self.binding = binding
        self.version = version
        self._client: A2AClient | None = None
        self._connecting = asyncio.Lock()

    async def client(self) -> A2AClient:
        """The client, connected on first use."""
        async with self._connecting:
            if self._client is None:
                self._client = await A2AClient.connect(
                    self.url,
                    binding=self.binding,
                    version=self.version,
                    credentials=self.credentials,
                )
            return self._client

    async def send(self, message: m.Message | str, *, blocking: bool = True) -> m.Task | m.Message:
        return await (await self.client()).send(message, blocking=blocking)

    async def ask(self, text: str, *, context_id: str | None = None) -> str:
        """Send `text` (in `context_id`, to continue a conversation), wait for the answer, and
        return its text: a Message's, or the task's artifacts' (its status message's when it
        has none)."""
        result = await self.send(text_message(text, context_id=context_id))
        if isinstance(result, m.Message):
            return _text(result.parts)
        if result.status.state in UNSUCCESSFUL:
            raise RemoteTaskFailed(self.name, result)
        texts = [_text(artifact.parts) for artifact in result.artifacts or []]
        if any(texts):
            return "\n".join(t for t in texts if t)
        return _text(result.status.message.parts) if result.status.message else ""


def _text(parts: list[m.Part]) -> str:
    return "".join(part.text for part in parts if part.text is not None)


def remote_agents(
    in_code: Mapping[str, str | turn.RemoteAgent], setting: str | None
) -> dict[str, turn.RemoteAgent]:
    """The remote agents of an agent's definition and of A2A_REMOTE_AGENTS (code wins)."""
    found: dict[str, turn.RemoteAgent] = dict(parse_setting(setting)) if setting else {}
    for name, value in in_code.items():
        if isinstance(value, str):
            value = RemoteAgent(value, name=name)
        elif isinstance(value, RemoteAgent) and value.name == value.url:
            value.name = name
        found[name] = value
    return found


def parse_setting(value: str) -> dict[str, RemoteAgent]:
    """A2A_REMOTE_AGENTS read; ValueError naming the setting for a value that is not one."""
    try:
        document = json.loads(value)
    except ValueError as exc:
        raise ValueError(f"{SETTING} is not JSON: {exc}") from None
    if not isinstance(document, dict):
        raise ValueError(f"{SETTING} must be a JSON object of names and URLs")
    found: dict[str, RemoteAgent] = {}
    for name, entry in document.items():
        if isinstance(entry, str):
            entry = {"url": entry}
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            raise ValueError(f"{SETTING}: {name!r} needs a URL (a string, or an object's url)")
        unknown = set(entry) - {"url", "binding", "version", "oauthScopes", *_CREDENTIAL_KEYS}
        if unknown:
            raise ValueError(f"{SETTING}: {name!r} has unknown members {sorted(unknown)}")
        options = {field: entry[key] for key, field in _CREDENTIAL_KEYS.items() if key in entry}
        scopes = entry.get("oauthScopes") or ()
        credentials = CredentialOptions(**options, oauth_scopes=tuple(scopes))
        if entry.get("binding") not in (None, "JSONRPC", "HTTP+JSON"):
            raise ValueError(f"{SETTING}: {name!r} binding must be JSONRPC or HTTP+JSON")
        if entry.get("version") not in (None, "1.0", "0.3"):
            raise ValueError(f"{SETTING}: {name!r} version must be 1.0 or 0.3")
        found[name] = RemoteAgent(
            entry["url"],
            credentials=credentials,
            binding=entry.get("binding"),
            version=entry.get("version"),
            name=name,
        )
    return found
