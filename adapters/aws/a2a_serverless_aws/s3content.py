"""Large parts of the DynamoDB store's tasks in an S3 bucket: `S3ContentStore`, the
`ContentStore` of a2a_serverless.store.content.

Objects are written once under fresh keys (``<prefix>tasks/<task id>/<uuid>``) and read by key.
`expire` marks a finished task's objects for the bucket's lifecycle rule: S3 expires objects by
days since they were written, so each is copied onto itself (server-side, no bytes through
Lambda) with the tag ``a2a-expiring=true``, which restarts its age at the moment the task
finished; the rule (serverless.yml, infra/aws) removes tagged objects a day after the finished
task's TTL. The bucket needs no other rule for this store: objects of writes known to have
failed are deleted at once, those of writes whose outcome is unknown go with their task.

With `content_signed_urls` on it is also a `SigningContentStore`: a file part's decoded bytes
are an object of their own (``<key>.file``, served with the part's mimeType), handed to clients
as a SigV4 presigned GET URL, computed locally (no request), valid for at most 7 days (S3's
limit for SigV4). The URL carries the credentials' access key id, never their secret; on Lambda
that is the function role's temporary credentials, so a URL also stops working when those
expire (hours), whatever its TTL.

botocore loads when the first object is read or written, never at import: a task with no large
part costs no S3 client.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from functools import cached_property
from typing import Any

from a2a_serverless.store.base import StoreUnavailable
from a2a_serverless.store.content import FILE_SUFFIX, ContentMissing

EXPIRING_TAG = "a2a-expiring"
# SigV4 presigned URLs are valid for at most 7 days.
MAX_URL_TTL_S = 7 * 24 * 3600
_DELETE_BATCH = 1000  # DeleteObjects' limit


class S3ContentStore:
    """A `ContentStore` on the S3 bucket `bucket`, keys under `prefix`.

    `region` and `endpoint_url` default to botocore's configuration (AWS_REGION,
    AWS_ENDPOINT_URL_S3, ...); credentials come from botocore's usual chain.
    """

    def __init__(
        self,
        bucket: str,
        *,
        prefix: str = "",
        region: str | None = None,
        endpoint_url: str | None = None,
    ) -> None:
        if not bucket:
            raise ValueError("an S3 content store needs a bucket name")
        self.bucket = bucket
        self.prefix = prefix
        self.region = region
        self.endpoint_url = endpoint_url

    max_url_ttl_s: float = MAX_URL_TTL_S

    def __repr__(self) -> str:
        return f"S3ContentStore({self.bucket!r}, prefix={self.prefix!r})"

    @cached_property
    def client(self) -> Any:
        import botocore.session  # type: ignore[import-untyped]
        from botocore.config import Config  # type: ignore[import-untyped]

        # SigV4 for presigned URLs too (botocore may presign with SigV2 otherwise, which puts
        # no lifetime under the signature's scope and is deprecated).
        return botocore.session.get_session().create_client(
            "s3",
            region_name=self.region,
            endpoint_url=self.endpoint_url,
            config=Config(signature_version="s3v4"),
        )

    async def _call(self, operation: str, **arguments: Any) -> Any:
        from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

        try:
            return await asyncio.to_thread(getattr(self.client, operation), **arguments)
        except ClientError as error:
            code = error.response.get("Error", {}).get("Code", "")
            if code in ("NoSuchKey", "404") and "Key" in arguments:
                raise ContentMissing(arguments["Key"]) from None
            raise StoreUnavailable(f"S3 bucket {self.bucket!r}: {operation}: {error}") from error
        except BotoCoreError as error:
            raise StoreUnavailable(f"S3 bucket {self.bucket!r}: {operation}: {error}") from error

    async def put(self, key: str, data: bytes) -> None:
        await self._call(
            "put_object",
            Bucket=self.bucket,
            Key=self.prefix + key,
            Body=data,
            ContentType="application/json",
        )

    async def put_file(self, key: str, data: bytes, content_type: str) -> None:
        await self._call(
            "put_object",
            Bucket=self.bucket,
            Key=self.prefix + key,
            Body=data,
            ContentType=content_type,
        )

    async def signed_url(self, key: str, ttl_s: int) -> str:
        # Computed locally from the client's credentials: no request, nothing to wait for.
        if not 1 <= ttl_s <= MAX_URL_TTL_S:
            raise ValueError(f"a signed URL lives 1 to {MAX_URL_TTL_S} s, not {ttl_s}")
        url: str = self.client.generate_presigned_url(
            "get_object",
            Params={"Bucket": self.bucket, "Key": self.prefix + key},
            ExpiresIn=ttl_s,
        )
        return url

    async def get(self, key: str) -> bytes:
        try:
            answer = await self._call("get_object", Bucket=self.bucket, Key=self.prefix + key)
        except ContentMissing:
            raise ContentMissing(key) from None
        body = answer["Body"]
        try:
            data: bytes = await asyncio.to_thread(body.read)
        finally:
            body.close()
        return data

    async def delete(self, keys: Sequence[str]) -> None:
        for start in range(0, len(keys), _DELETE_BATCH):
            batch = keys[start : start + _DELETE_BATCH]
            await self._call(
                "delete_objects",
                Bucket=self.bucket,
                Delete={"Objects": [{"Key": self.prefix + key} for key in batch], "Quiet": True},
            )

    async def expire(self, prefix: str, expires_at_ms: int) -> None:
        async for page in self._pages(prefix):
            await asyncio.gather(*(self._mark(item["Key"], expires_at_ms) for item in page))

    async def listed(self, prefix: str) -> list[tuple[str, int]]:
        found: list[tuple[str, int]] = []
        async for page in self._pages(prefix):
            found += [
                (item["Key"][len(self.prefix) :], int(item["LastModified"].timestamp() * 1000))
                for item in page
            ]
        return found

    async def _pages(self, prefix: str) -> AsyncIterator[list[dict[str, Any]]]:
        """The objects under `prefix`, a page (up to 1,000) at a time."""
        token: str | None = None
        while True:
            page = await self._call(
                "list_objects_v2",
                Bucket=self.bucket,
                Prefix=self.prefix + prefix,
                **({} if token is None else {"ContinuationToken": token}),
            )
            yield list(page.get("Contents", ()))
            if not page.get("IsTruncated"):
                return
            token = page["NextContinuationToken"]

    async def _mark(self, key: str, expires_at_ms: int) -> None:
        # Onto itself: S3 wants some change, hence the metadata (which also records when). The
        # metadata is replaced, Content-Type with it: a file object keeps its own.
        content_type = "application/json"
        if key.endswith(FILE_SUFFIX):
            head = await self._call("head_object", Bucket=self.bucket, Key=key)
            content_type = head.get("ContentType") or "application/octet-stream"
        await self._call(
            "copy_object",
            Bucket=self.bucket,
            Key=key,
            CopySource={"Bucket": self.bucket, "Key": key},
            MetadataDirective="REPLACE",
            ContentType=content_type,
            Metadata={"a2a-expires-at-ms": str(expires_at_ms)},
            TaggingDirective="REPLACE",
            Tagging=f"{EXPIRING_TAG}=true",
        )
