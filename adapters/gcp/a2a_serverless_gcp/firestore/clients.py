"""One Firestore AsyncClient per event loop.

An AsyncClient talks over a grpc.aio channel, and a grpc.aio channel belongs to the event loop
it was first used on: awaiting it from another loop fails ("attached to a different loop",
"Event loop is closed"). A Store is shared by everything in a process, and some hosts run
several loops (a thread with its own loop, `asyncio.run` per request), so the store asks this
registry for the client of the loop it is running on, created on first use there.

Clients of loops that have been closed are dropped at the next lookup (their channels cannot
be closed any more, only released). `close()` closes the calling loop's client, and asks every
other running loop to close its own. Credentials are resolved once, by the first client, and
shared, so a new loop costs a new channel but no new credential lookup.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from google.cloud.firestore import AsyncClient

log = logging.getLogger(__name__)


class LoopClients:
    def __init__(self, *, project: str | None, database: str, credentials: Any = None) -> None:
        # Imported here, not at module level: google-cloud-firestore takes a quarter of a
        # second to import, which a process that never builds a store should not pay.
        from google.cloud.firestore import AsyncClient

        self._client_class = AsyncClient
        self._project = project
        self._database = database
        self._credentials = credentials
        self._lock = threading.Lock()
        self._clients: dict[asyncio.AbstractEventLoop, AsyncClient] = {}

    @property
    def project(self) -> str | None:
        """The project, once known: as given, or as the first client found it."""
        return self._project

    def current(self) -> AsyncClient:
        """The client of the running event loop, created on first use there."""
        loop = asyncio.get_running_loop()
        with self._lock:
            client = self._clients.get(loop)
            if client is not None:
                return client
            for closed in [other for other in self._clients if other.is_closed()]:
                del self._clients[closed]
            client = self._client_class(
                project=self._project, database=self._database, credentials=self._credentials
            )
            if self._credentials is None:
                # The first client ran the credential lookup (Application Default Credentials,
                # or anonymous ones for the emulator); later ones reuse what it found.
                self._credentials = client._credentials
                self._project = client.project
            self._clients[loop] = client
            return client

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            clients, self._clients = self._clients, {}
        for owner, client in clients.items():
            if owner is loop:
                await _close(client)
            elif owner.is_running():
                # A channel can only be closed on its own loop.
                asyncio.run_coroutine_threadsafe(_close(client), owner)


async def _close(client: AsyncClient) -> None:
    # The client has no close() of its own; its GAPIC transport owns the channel. Nothing to
    # close if the client never made a call (the transport is created on first use).
    api = getattr(client, "_firestore_api_internal", None)
    if api is None:
        return
    try:
        await api.transport.close()
    except Exception:
        # Best effort: the channel may be broken already, and the client is dropped anyway.
        log.debug("closing a Firestore client failed", exc_info=True)
