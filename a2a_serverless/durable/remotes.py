"""The remote agents a deployment calls durably: names resolved to URLs, one client per agent,
and the SSRF guard for URLs that did not come from configuration.

A remote is named in code (`Agent(remote_agents={"reviewer": "https://..."})`, or a
`RemoteAgent` with its credentials) or in the A2A_REMOTE_AGENTS setting (a JSON object; the
same mapping `ctx.remote(name)` uses, read by `client/remote.py`); a URL given to `ctx.call`
directly may come from data (a user's message), so it passes the push SSRF guard (no private,
loopback or link-local address outside dev mode) before anything is sent to it. Configured URLs
are the operator's and are trusted as written, with their credentials.

The client (a2a_serverless.client, with httpx) is imported on the first call, never on a cold
start that makes none.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..config import Settings
from .outcomes import RemoteUnavailable, UnknownRemote

if TYPE_CHECKING:
    from ..client import A2AClient
    from ..turn import RemoteAgent


class Remotes:
    def __init__(self, settings: Settings, configured: Mapping[str, RemoteAgent] | None = None):
        self.settings = settings
        self.agents = dict(configured or {})
        self.names = {name: agent.url for name, agent in self.agents.items()}
        # A configured URL reached directly keeps its agent's credentials.
        self._by_url = {agent.url.rstrip("/"): agent for agent in self.agents.values()}
        self._clients: dict[str, A2AClient] = {}
        self._lock = asyncio.Lock()

    async def resolve(self, remote: str) -> str:
        """The URL of `remote` (a configured name, or a URL that passes the SSRF guard)."""
        if remote in self.names:
            return self.names[remote]
        if not remote.startswith(("http://", "https://")):
            known = ", ".join(sorted(self.names)) or "none are configured"
            raise UnknownRemote(
                f"no remote agent is named {remote!r} (known: {known}); give a URL, or name it "
                "in Agent(remote_agents=...) or A2A_REMOTE_AGENTS"
            )
        if remote.rstrip("/") not in self._by_url:
            from ..push.ssrf import UrlGuard, UrlRefused

            guard = UrlGuard(dev_mode=self.settings.dev_mode)
            try:
                await guard.check_at_set_time(remote)
            except UrlRefused as refused:
                raise RemoteUnavailable(f"refused: {refused}", remote=remote) from None
        return remote

    async def client(self, url: str) -> A2AClient:
        """The client of the agent at `url` (its card fetched once per process, then cached),
        with the credentials, binding and version configured for it, if any."""
        client = self._clients.get(url)
        if client is not None:
            return client
        async with self._lock:
            client = self._clients.get(url)
            if client is None:
                from ..client import A2AClient, ClientError
                from ..client.remote import RemoteAgent as ConfiguredAgent

                agent = self._by_url.get(url.rstrip("/"))
                configured = agent if isinstance(agent, ConfiguredAgent) else None
                try:
                    client = await A2AClient.connect(
                        url,
                        allow_private_urls=self.settings.dev_mode,
                        credentials=configured.credentials if configured else None,
                        binding=configured.binding if configured else None,
                        version=configured.version if configured else None,
                    )
                except ClientError as exc:
                    raise RemoteUnavailable(
                        f"the agent at {url} could not be reached: {exc}", remote=url
                    ) from None
                self._clients[url] = client
        return client

    @staticmethod
    def offers_push(client: A2AClient) -> bool:
        return bool((client.card.get("capabilities") or {}).get("pushNotifications"))
