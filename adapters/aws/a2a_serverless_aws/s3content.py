"""Large parts of the DynamoDB store's tasks in an S3 bucket: `S3ContentStore`, the
`ContentStore` of a2a_serverless.store.content.

Objects are written once under fresh keys (``<prefix>tasks/<task id>/<uuid>``) and read by key.
`expire` marks a finished task's objects for the bucket's lifecycle rule: S3 expires objects by
days since they were written, so each is copied onto itself (server-side, no bytes through
Lambda) with the tag ``a2a-expiring=true``, which restarts its age at the moment the task
finished; the rule (serverless.yml, infra/aws) removes tagged objects a day after the finished
task's TTL. The bucket needs no other rule for this store: objects of writes known to have
failed are deleted at once, those of writes whose outcome is unknown go with their task.

botocore loads when the first object is read or written, never at import: a task with no large
part costs no S3 client.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from functools import cached_property
from typing import Any

from a2a_serverless.store.base import StoreUnavailable
from a2a_serverless.store.content import ContentMissing

EXPIRING_TAG = "a2a-expiring"
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

    def __repr__(self) -> str:
        return f"S3ContentStore({self.bucket!r}, prefix={self.prefix!r})"

    @cached_property
    def client(self) -> Any:
        import botocore.session  # type: ignore[import-untyped]

        return botocore.session.get_session().create_client(
            "s3", region_name=self.region, endpoint_url=self.endpoint_url
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
        # Onto itself: S3 wants some change, hence the metadata (which also records when).
        await self._call(
            "copy_object",
            Bucket=self.bucket,
            Key=key,
            CopySource={"Bucket": self.bucket, "Key": key},
            MetadataDirective="REPLACE",
            ContentType="application/json",
            Metadata={"a2a-expires-at-ms": str(expires_at_ms)},
            TaggingDirective="REPLACE",
            Tagging=f"{EXPIRING_TAG}=true",
        )
