"""Signed URLs for large file parts, made where answers go out (`content_signed_urls`).

With the setting on, a file part with inline bytes that the store keeps in its content bucket
(a part over its offload threshold: a2a_serverless.store.content, which then also writes the
decoded bytes as an object of their own) reaches clients as a part with a `url` (0.3: a
`FileWithUri`) and the same filename and media type: a signed GET URL of those bytes, valid for
`content_url_ttl_s`. Every answer that carries a task or its events goes through `FileLinks`: the
service's (GetTask, ListTasks, SendMessage, CancelTask, every stream and its replay) and the
webhook bodies. Direct replies (a Message, no task) keep their bytes.

Links are made here, never in the store: the journal writes the records it reads back, and
would store a URL (which expires) in place of the bytes. A part whose bytes have no object
(small, written before the setting was on, or not read by this process) keeps its bytes: an
answer is never wrong, at worst inline.

A signed URL is a bearer credential for its file until it expires: it is never logged.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import msgspec

from .config import ConfigurationError, Settings, env_name
from .models import Part, Task
from .store.base import StoreError, TaskEventPayload
from .store.content import (
    Offloader,
    SigningContentStore,
    event_parts,
    map_event_payload,
    map_task,
)

log = logging.getLogger("a2a_serverless.filelinks")


class FileLinks:
    """Swaps a task's large file parts for signed URLs of their bytes (see the module)."""

    def __init__(self, offloader: Offloader, ttl_s: int) -> None:
        content = offloader.content
        if not isinstance(content, SigningContentStore):
            raise TypeError(f"{content!r} cannot sign URLs")
        self._offloader = offloader
        self._content: SigningContentStore = content
        self.ttl_s = ttl_s

    async def task(self, task: Task) -> Task:
        linked = await self._links(task.id, _task_parts(task))
        return task if not linked else map_task(task, lambda part: linked.get(id(part), part))

    async def event(self, task_id: str, payload: TaskEventPayload) -> TaskEventPayload:
        linked = await self._links(task_id, event_parts(payload))
        if not linked:
            return payload
        return map_event_payload(payload, lambda part: linked.get(id(part), part))

    async def _links(self, task_id: str, parts: list[Part]) -> dict[int, Part]:
        """The linked form of each part that has a file object, by the part's id()."""
        keys = {id(part): (part, self._offloader.file_key(task_id, part)) for part in parts}
        wanted = [(part, key) for part, key in keys.values() if key is not None]
        if not wanted:
            return {}
        urls = await asyncio.gather(
            *(self._content.signed_url(key, self.ttl_s) for _, key in wanted),
            return_exceptions=True,
        )
        linked: dict[int, Part] = {}
        for (part, _), url in zip(wanted, urls, strict=True):
            if isinstance(url, StoreError):
                # Not signed now (the signing service refused or could not be reached): the
                # bytes go out as they are, which is never wrong. The URL is never logged.
                log.warning("a file part of task %s goes out inline: %s", task_id, url)
                continue
            if isinstance(url, BaseException):
                raise url
            linked[id(part)] = msgspec.structs.replace(part, raw=None, url=url)
        return linked


def _task_parts(task: Task) -> list[Part]:
    parts: list[Part] = []
    if task.status.message is not None:
        parts += task.status.message.parts
    for message in task.history or ():
        parts += message.parts
    for artifact in task.artifacts or ():
        parts += artifact.parts
    return parts


def file_links(store: Any, settings: Settings) -> FileLinks | None:
    """The FileLinks `settings` ask for on `store`, None when off. A store that cannot sign
    is a ConfigurationError naming the setting: the deployment must not start believing it
    serves links."""
    if not settings.content_signed_urls:
        return None
    name = env_name("content_signed_urls")
    offloader = getattr(store, "offloader", None)
    if not isinstance(offloader, Offloader):
        raise ConfigurationError(
            f"{name}=true needs a store that keeps large parts in object storage "
            f"(dynamodb://...&content=s3://<bucket>, firestore://...?content=gs://<bucket>); "
            f"{type(store).__name__} has none"
        )
    content = offloader.content
    if not isinstance(content, SigningContentStore):
        raise ConfigurationError(f"{name}=true: the content store {content!r} cannot sign URLs")
    ttl = settings.content_url_ttl_s
    if ttl > content.max_url_ttl_s:
        raise ConfigurationError(
            f"{env_name('content_url_ttl_s')}={ttl:g}: {content!r} signs URLs for at most "
            f"{content.max_url_ttl_s:g} s"
        )
    # The store writes each offloaded file part's bytes as an object of their own from now on.
    offloader.file_objects = True
    return FileLinks(offloader, int(ttl))
