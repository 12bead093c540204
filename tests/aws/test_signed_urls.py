"""Signed URLs for large file parts (`content_signed_urls`, a2a_serverless.filelinks) on
DynamoDB Local + S3 (moto server, real HTTP): every answer of both versions carries a URL in
place of the bytes, the URL gives exactly those bytes, its lifetime is under its SigV4
signature, the store keeps the bytes, and with the setting off nothing changes."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import pytest
from msgspec.structs import replace

from a2a_serverless import Settings, create_app
from a2a_serverless.config import ConfigurationError
from a2a_serverless.models import Artifact, TaskState, TaskStatus
from a2a_serverless.store.base import TaskEvent, VersionConflict
from a2a_serverless.store.content import FILE_SUFFIX, task_prefix
from a2a_serverless.testing.store_contract import large_file, make_record, now_ms, step, with_state
from a2a_serverless_aws.dynamodb import DynamoDBStore
from a2a_serverless_aws.s3content import EXPIRING_TAG, MAX_URL_TTL_S, S3ContentStore
from tests.aws.conftest import DYNAMODB_TEST_REGION
from tests.integration.agent_fixtures import parse_sse
from tests.integration.photo_agent import (
    ICON,
    PHOTO,
    V10,
    AppFactory,
    app_factory,
    call,
    check_v03_artifact,
    check_v03_photo,
    check_v10_photo,
    message_v03,
    message_v10,
    photos,
    rpc,
)
from tests.push.webhook_server import WebhookServer

pytestmark = pytest.mark.aws


@pytest.fixture
def s3(moto_endpoint: str) -> Any:
    import boto3  # type: ignore[import-untyped]

    return boto3.client("s3", endpoint_url=moto_endpoint, region_name=DYNAMODB_TEST_REGION)


@pytest.fixture
def app_client(
    dynamodb_endpoint: str, dynamodb_table: str, s3_content: S3ContentStore
) -> AppFactory:
    def store() -> DynamoDBStore:
        return DynamoDBStore(
            dynamodb_table,
            region=DYNAMODB_TEST_REGION,
            endpoint_url=dynamodb_endpoint,
            content=s3_content,
        )

    return app_factory(store)


# --- A2A 0.3 --------------------------------------------------------------------------------


async def test_v03_get_list_and_send_answer_signed_urls(
    app_client: AppFactory, s3: Any, s3_bucket: str
) -> None:
    async with app_client(content_signed_urls=True) as (client, app):
        sent = (await call(client, app, rpc("message/send", message_v03()))).json()["result"]
        assert sent["status"]["state"] == "completed"
        check_v03_artifact(sent["artifacts"][0])
        task_id = sent["id"]

        got = (await call(client, app, rpc("tasks/get", {"id": task_id}))).json()["result"]
        check_v03_artifact(got["artifacts"][0])

        listed = await call(
            client,
            app,
            rpc("tasks/list", {"contextId": sent["contextId"], "includeArtifacts": True}),
        )
        [task] = listed.json()["result"]["tasks"]
        check_v03_artifact(task["artifacts"][0])

        # The store keeps the bytes (a reference to the part's JSON), not a URL; the bucket
        # holds the file's own object beside the part's JSON.
        record = await app.runtime.store.get_task(task_id)
        stored = record.task.artifacts[0].parts[0]
        assert stored.raw == base64.b64encode(PHOTO).decode()
        keys = [
            item["Key"]
            for item in s3.list_objects_v2(Bucket=s3_bucket, Prefix=task_prefix(task_id))[
                "Contents"
            ]
        ]
        assert len([k for k in keys if k.endswith(FILE_SUFFIX)]) == 1, keys


async def test_v03_streams_and_their_replay_carry_signed_urls(
    app_client: AppFactory,
) -> None:
    async with app_client(content_signed_urls=True) as (client, app):
        response = await call(client, app, rpc("message/stream", message_v03()))
        events = [data["result"] for _, data in parse_sse(response.text)]
        [update] = [e for e in events if e.get("kind") == "artifact-update"]
        check_v03_artifact(update["artifact"])
        task_id = update["taskId"]

        # Replay from event 0 (Last-Event-ID) and the resubscription to the finished task.
        replay = await call(
            client, app, rpc("tasks/resubscribe", {"id": task_id}), headers={"Last-Event-ID": "0"}
        )
        replayed = [data["result"] for _, data in parse_sse(replay.text)]
        [again] = [e for e in replayed if e.get("kind") == "artifact-update"]
        check_v03_artifact(again["artifact"])
        resubscribed = await call(client, app, rpc("tasks/resubscribe", {"id": task_id}))
        [(_, first)] = parse_sse(resubscribed.text)[:1]
        check_v03_artifact(first["result"]["artifacts"][0])


# --- A2A 1.0 --------------------------------------------------------------------------------


async def test_v10_get_task_and_a_stream_answer_parts_with_url(
    app_client: AppFactory,
) -> None:
    async with app_client(content_signed_urls=True) as (client, app):
        sent = await call(client, app, rpc("SendMessage", message_v10()), headers=V10)
        task = sent.json()["result"]["task"]
        photo, icon = task["artifacts"][0]["parts"]
        check_v10_photo(photo)
        assert base64.b64decode(icon["raw"]) == ICON

        got = await call(client, app, rpc("GetTask", {"id": task["id"]}), headers=V10)
        check_v10_photo(got.json()["result"]["artifacts"][0]["parts"][0])

        # Another instance, which never wrote the task: its read learns the file object.
        async with app_client(content_signed_urls=True) as (other, other_app):
            got = await call(other, other_app, rpc("GetTask", {"id": task["id"]}), headers=V10)
            check_v10_photo(got.json()["result"]["artifacts"][0]["parts"][0])

        streamed = await call(client, app, rpc("SendStreamingMessage", message_v10()), headers=V10)
        events = [data["result"] for _, data in parse_sse(streamed.text)]
        [update] = [e["artifactUpdate"] for e in events if "artifactUpdate" in e]
        check_v10_photo(update["artifact"]["parts"][0])


# --- the URL ----------------------------------------------------------------------------------


def sigv4_signature(url: str, secret: str) -> str:
    """The SigV4 query signature of a presigned GET `url`, computed from the AWS docs'
    algorithm (not botocore's): every query parameter but the signature is signed."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "X-Amz-Signature"]
    canonical_query = "&".join(
        f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in sorted(query)
    )
    params = dict(query)
    canonical = "\n".join(
        ["GET", parts.path, canonical_query, f"host:{parts.netloc}", "", "host", "UNSIGNED-PAYLOAD"]
    )
    date = params["X-Amz-Date"]
    scope = params["X-Amz-Credential"].split("/", 1)[1]
    to_sign = "\n".join(
        ["AWS4-HMAC-SHA256", date, scope, hashlib.sha256(canonical.encode()).hexdigest()]
    )
    key = ("AWS4" + secret).encode()
    for piece in scope.split("/"):
        key = hmac.new(key, piece.encode(), hashlib.sha256).digest()
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


async def test_the_url_expires_after_the_ttl_under_its_signature(
    app_client: AppFactory,
) -> None:
    """moto serves presigned URLs without checking them; S3 refuses one after X-Amz-Expires
    seconds from X-Amz-Date, and that lifetime is signed: shown by checking the signature."""
    async with app_client(content_signed_urls=True, content_url_ttl_s=90) as (client, app):
        sent = (await call(client, app, rpc("message/send", message_v03()))).json()["result"]
        url = check_v03_photo(sent["artifacts"][0]["parts"][0])
    params = dict(parse_qsl(urlsplit(url).query))
    assert params["X-Amz-Algorithm"] == "AWS4-HMAC-SHA256"
    assert params["X-Amz-Expires"] == "90"
    secret = os.environ["AWS_SECRET_ACCESS_KEY"]
    assert sigv4_signature(url, secret) == params["X-Amz-Signature"]
    longer = url.replace("X-Amz-Expires=90", f"X-Amz-Expires={MAX_URL_TTL_S}")
    assert sigv4_signature(longer, secret) != params["X-Amz-Signature"]


async def test_the_ttl_is_bounded_by_what_s3_signs(
    dynamodb_endpoint: str, dynamodb_table: str, s3_content: S3ContentStore
) -> None:
    store = DynamoDBStore(
        dynamodb_table,
        region=DYNAMODB_TEST_REGION,
        endpoint_url=dynamodb_endpoint,
        content=s3_content,
    )
    settings = Settings(
        store_url="memory://", content_signed_urls=True, content_url_ttl_s=MAX_URL_TTL_S + 1
    )
    with pytest.raises(ConfigurationError, match="A2A_CONTENT_URL_TTL_S"):
        create_app(photos, settings, store=store)


async def test_a_store_that_cannot_sign_is_refused_at_start() -> None:
    settings = Settings(store_url="memory://", content_signed_urls=True)
    with pytest.raises(ConfigurationError, match="A2A_CONTENT_SIGNED_URLS=true needs a store"):
        create_app(photos, settings)


# --- webhooks -----------------------------------------------------------------------------------


async def test_webhook_bodies_carry_signed_urls(
    app_client: AppFactory,
) -> None:
    webhook = await WebhookServer().start()
    try:
        async with app_client(content_signed_urls=True) as (
            client,
            app,
        ):
            config = {"url": webhook.url(), "token": "t"}
            params = message_v03(configuration={"pushNotificationConfig": config})
            await call(client, app, rpc("message/send", params))
            notifications = await webhook.wait_for(1, timeout=15)
            bodies = [json.loads(n.body) for n in notifications]
            with_artifacts = [b for b in bodies if b.get("artifacts")]
            assert with_artifacts, bodies
            check_v03_artifact(with_artifacts[-1]["artifacts"][0])
    finally:
        await webhook.stop()


# --- the file objects in the bucket ------------------------------------------------------------


def bucket_keys(s3: Any, bucket: str, task_id: str) -> list[str]:
    listing = s3.list_objects_v2(Bucket=bucket, Prefix=task_prefix(task_id))
    return sorted(item["Key"] for item in listing.get("Contents", []))


@pytest.fixture
def file_store(
    dynamodb_endpoint: str, dynamodb_table: str, s3_content: S3ContentStore
) -> DynamoDBStore:
    store = DynamoDBStore(
        dynamodb_table,
        region=DYNAMODB_TEST_REGION,
        endpoint_url=dynamodb_endpoint,
        content=s3_content,
    )
    assert store.offloader is not None
    store.offloader.file_objects = True  # what filelinks.file_links does with the setting on
    return store


async def test_a_write_that_fails_removes_its_file_objects_too(
    file_store: DynamoDBStore, s3: Any, s3_bucket: str
) -> None:
    record = make_record(state=TaskState.WORKING)
    await file_store.create_task(record)
    stale = replace(record, version=record.version - 1)
    task = record.task.model_copy(
        update={"artifacts": [Artifact(artifact_id="a-1", parts=[large_file(50_000)])]}
    )
    with pytest.raises(VersionConflict):
        await file_store.update_task(stale.next(task=task))
    assert bucket_keys(s3, s3_bucket, record.task_id) == []


async def test_a_finished_task_s_file_object_keeps_its_content_type_when_marked(
    file_store: DynamoDBStore, s3: Any, s3_bucket: str
) -> None:
    record = make_record(state=TaskState.WORKING)
    await file_store.create_task(record)
    part = large_file(50_000, mime_type="image/webp")
    task = record.task.model_copy(update={"artifacts": [Artifact(artifact_id="a-1", parts=[part])]})
    following = record.next(task=task)
    await file_store.update_task(following)
    finished, events = step(
        following,
        1,
        task=with_state(following, TaskState.COMPLETED),
        expires_at_ms=now_ms() + 3_600_000,
    )
    final = [
        TaskEvent(
            seq=e.seq,
            payload=e.payload.model_copy(update={"status": TaskStatus(state=TaskState.COMPLETED)}),
        )
        for e in events
    ]
    await file_store.update_task(finished, final)
    keys = bucket_keys(s3, s3_bucket, record.task_id)
    [file_key] = [k for k in keys if k.endswith(FILE_SUFFIX)]
    for key in keys:
        tags = s3.get_object_tagging(Bucket=s3_bucket, Key=key)["TagSet"]
        assert {"Key": EXPIRING_TAG, "Value": "true"} in tags, key
    head = s3.head_object(Bucket=s3_bucket, Key=file_key)
    assert head["ContentType"] == "image/webp"
    body = s3.get_object(Bucket=s3_bucket, Key=file_key)["Body"].read()
    assert part.raw is not None
    assert body == base64.b64decode(part.raw)


# --- off ----------------------------------------------------------------------------------------


async def test_off_by_default_answers_bytes_and_writes_no_file_object(
    app_client: AppFactory, s3: Any, s3_bucket: str
) -> None:
    async with app_client() as (client, app):
        sent = (await call(client, app, rpc("message/send", message_v03()))).json()["result"]
        photo = sent["artifacts"][0]["parts"][0]["file"]
        assert base64.b64decode(photo["bytes"]) == PHOTO and "uri" not in photo
        streamed = await call(client, app, rpc("message/stream", message_v03()))
        events = [data["result"] for _, data in parse_sse(streamed.text)]
        [update] = [e for e in events if e.get("kind") == "artifact-update"]
        assert base64.b64decode(update["artifact"]["parts"][0]["file"]["bytes"]) == PHOTO
        listing = s3.list_objects_v2(Bucket=s3_bucket, Prefix=task_prefix(sent["id"]))
        keys = [item["Key"] for item in listing["Contents"]]
        assert keys and not [k for k in keys if k.endswith(FILE_SUFFIX)], keys
