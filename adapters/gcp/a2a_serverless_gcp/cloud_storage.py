"""Large parts of the Firestore store's tasks in a Cloud Storage bucket:
`CloudStorageContentStore`, the `ContentStore` of a2a_serverless.store.content.

Objects are written once under fresh names (``<prefix>tasks/<task id>/<uuid>``) and read by
name. `expire` sets each of a finished task's objects' Custom-Time to the moment the task
expires; the bucket's lifecycle rule (infra/gcp/storage.tf) deletes objects a day past their
Custom-Time, so a task's content goes with it. Objects of writes known to have failed are
deleted at once; those of writes whose outcome is unknown stay under the task's name and go
with it.

google-cloud-storage (about 0.19 s to import) loads when the first object is read or written,
never at import: a task with no large part costs nothing. With STORAGE_EMULATOR_HOST set the
client talks to that emulator, as google-cloud-storage does by itself.
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, TypeVar

from a2a_serverless.store.base import StoreUnavailable
from a2a_serverless.store.content import ContentMissing

_T = TypeVar("_T")


class CloudStorageContentStore:
    """A `ContentStore` on the Cloud Storage bucket `bucket`, names under `prefix`.

    `project` and `credentials` default to Application Default Credentials' (a bucket name is
    global; the project only matters to the client)."""

    def __init__(
        self,
        bucket: str,
        *,
        prefix: str = "",
        project: str | None = None,
        credentials: Any = None,
    ) -> None:
        if not bucket:
            raise ValueError("a Cloud Storage content store needs a bucket name")
        self.bucket_name = bucket
        self.prefix = prefix
        self.project = project
        self._credentials = credentials

    def __repr__(self) -> str:
        return f"CloudStorageContentStore({self.bucket_name!r}, prefix={self.prefix!r})"

    @cached_property
    def bucket(self) -> Any:
        from google.cloud import storage  # type: ignore[attr-defined]

        client = storage.Client(project=self.project, credentials=self._credentials)
        return client.bucket(self.bucket_name)

    async def _call(self, name: str | None, call: Callable[[], _T]) -> _T:
        from google.api_core import exceptions
        from google.auth.exceptions import GoogleAuthError
        from requests import RequestException

        try:
            return await asyncio.to_thread(call)
        except exceptions.NotFound:
            if name is None:
                raise StoreUnavailable(
                    f"Cloud Storage bucket {self.bucket_name!r} not found"
                ) from None
            raise ContentMissing(name) from None
        except (exceptions.GoogleAPIError, GoogleAuthError, RequestException) as error:
            raise StoreUnavailable(f"Cloud Storage bucket {self.bucket_name!r}: {error}") from error

    async def put(self, key: str, data: bytes) -> None:
        blob = self.bucket.blob(self.prefix + key)
        await self._call(
            None, lambda: blob.upload_from_string(data, content_type="application/json")
        )

    async def get(self, key: str) -> bytes:
        blob = self.bucket.blob(self.prefix + key)
        data: bytes = await self._call(key, blob.download_as_bytes)
        return data

    async def delete(self, keys: Sequence[str]) -> None:
        if not keys:
            return
        bucket = self.bucket
        blobs = [bucket.blob(self.prefix + key) for key in keys]
        # A name with no object is no error (on_error swallows its NotFound).
        await self._call(None, lambda: bucket.delete_blobs(blobs, on_error=lambda _: None))

    async def listed(self, prefix: str) -> list[tuple[str, int]]:
        bucket = self.bucket
        blobs = await self._call(
            None, lambda: list(bucket.client.list_blobs(bucket, prefix=self.prefix + prefix))
        )
        return [
            (blob.name[len(self.prefix) :], int(blob.time_created.timestamp() * 1000))
            for blob in blobs
        ]

    async def expire(self, prefix: str, expires_at_ms: int) -> None:
        when = datetime.datetime.fromtimestamp(expires_at_ms / 1000, tz=datetime.UTC)
        bucket = self.bucket
        blobs = await self._call(
            None, lambda: list(bucket.client.list_blobs(bucket, prefix=self.prefix + prefix))
        )

        def marker(blob: Any) -> Callable[[], None]:
            def mark() -> None:
                blob.custom_time = when
                blob.patch()

            return mark

        await asyncio.gather(*(self._call(blob.name, marker(blob)) for blob in blobs))
