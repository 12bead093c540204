"""Large parts of the Firestore store's tasks in a Cloud Storage bucket:
`CloudStorageContentStore`, the `ContentStore` of a2a_serverless.store.content.

Objects are written once under fresh names (``<prefix>tasks/<task id>/<uuid>``) and read by
name. `expire` sets each of a finished task's objects' Custom-Time to the moment the task
expires; the bucket's lifecycle rule (infra/gcp/storage.tf) deletes objects a day past their
Custom-Time, so a task's content goes with it. Objects of writes known to have failed are
deleted at once; those of writes whose outcome is unknown stay under the task's name and go
with it.

With `content_signed_urls` on it is also a `SigningContentStore`: a file part's decoded bytes
are an object of their own (``<key>.file``, served with the part's mimeType), handed to clients
as a V4 signed GET URL (at most 7 days). Credentials holding a private key (a service account
key, or `signing_credentials`) sign locally; keyless ones (a function's service account, from
the metadata server) sign through the IAM Credentials API's signBlob, one request per URL, which
needs the service account to hold roles/iam.serviceAccountTokenCreator on itself. With
STORAGE_EMULATOR_HOST set, URLs point at the emulator.

google-cloud-storage (about 0.19 s to import) loads when the first object is read or written,
never at import: a task with no large part costs nothing. With STORAGE_EMULATOR_HOST set the
client talks to that emulator, as google-cloud-storage does by itself.
"""

from __future__ import annotations

import asyncio
import datetime
import os
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, TypeVar

from a2a_serverless.store.base import StoreUnavailable
from a2a_serverless.store.content import ContentMissing

_T = TypeVar("_T")
# V4 signed URLs are valid for at most 7 days.
MAX_URL_TTL_S = 7 * 24 * 3600


class CloudStorageContentStore:
    """A `ContentStore` on the Cloud Storage bucket `bucket`, names under `prefix`.

    `project` and `credentials` default to Application Default Credentials' (a bucket name is
    global; the project only matters to the client). `signing_credentials` sign URLs (default:
    the client's)."""

    max_url_ttl_s: float = MAX_URL_TTL_S

    def __init__(
        self,
        bucket: str,
        *,
        prefix: str = "",
        project: str | None = None,
        credentials: Any = None,
        signing_credentials: Any = None,
    ) -> None:
        if not bucket:
            raise ValueError("a Cloud Storage content store needs a bucket name")
        self.bucket_name = bucket
        self.prefix = prefix
        self.project = project
        self._credentials = credentials
        self._signing_credentials = signing_credentials

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

    async def put_file(self, key: str, data: bytes, content_type: str) -> None:
        blob = self.bucket.blob(self.prefix + key)
        await self._call(None, lambda: blob.upload_from_string(data, content_type=content_type))

    async def signed_url(self, key: str, ttl_s: int) -> str:
        if not 1 <= ttl_s <= MAX_URL_TTL_S:
            raise ValueError(f"a signed URL lives 1 to {MAX_URL_TTL_S} s, not {ttl_s}")
        blob = self.bucket.blob(self.prefix + key)
        # The client's own credentials otherwise (google-cloud-storage names no public
        # accessor; its signing helpers read the same attribute).
        credentials = self._signing_credentials or self.bucket.client._credentials
        options: dict[str, Any] = {
            "version": "v4",
            "method": "GET",
            "expiration": datetime.timedelta(seconds=ttl_s),
        }
        emulator = os.environ.get("STORAGE_EMULATOR_HOST")
        if emulator:
            options["api_access_endpoint"] = emulator

        def sign() -> str:
            from google.auth.credentials import Signing

            if isinstance(credentials, Signing):
                url: str = blob.generate_signed_url(credentials=credentials, **options)
                return url
            # Keyless: the IAM Credentials API signs for the service account (a request).
            from google.auth.transport.requests import Request

            if not hasattr(credentials, "service_account_email"):
                raise StoreUnavailable(
                    f"{type(credentials).__name__} cannot sign URLs: give the content store "
                    "a service account's credentials"
                )
            if not credentials.valid:
                credentials.refresh(Request())
            url = blob.generate_signed_url(
                service_account_email=credentials.service_account_email,
                access_token=credentials.token,
                **options,
            )
            return url

        return await self._call(None, sign)

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
