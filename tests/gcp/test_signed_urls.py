"""Signed URLs for large file parts (`content_signed_urls`) on the Firestore emulator + Cloud
Storage (gcp-storage-emulator, which serves V4 signed URLs' path without checking them): both
versions answer a URL in place of the bytes, the URL gives exactly those bytes, its lifetime is
under its RSA signature (checked here with the signer's public key), and credentials that
cannot sign leave the bytes inline."""

from __future__ import annotations

import base64
import hashlib
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import pytest

from a2a_serverless.store.content import FILE_SUFFIX, task_prefix
from a2a_serverless_gcp.cloud_storage import MAX_URL_TTL_S, CloudStorageContentStore
from a2a_serverless_gcp.firestore import FirestoreStore
from tests.gcp.conftest import FIRESTORE_TEST_PROJECT, unique_prefix
from tests.integration.agent_fixtures import parse_sse
from tests.integration.photo_agent import (
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
    rpc,
)

pytestmark = pytest.mark.gcp


@pytest.fixture(scope="module")
def signing_key() -> Any:
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def signer(signing_key: Any) -> Any:
    """A service account's credentials (a made-up key: signing is local, nothing calls
    Google)."""
    from cryptography.hazmat.primitives import serialization
    from google.oauth2 import service_account

    pem = signing_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    info = {
        "type": "service_account",
        "client_email": "agent@a2a-serverless-test.iam.gserviceaccount.com",
        "private_key": pem,
        "token_uri": "https://oauth2.googleapis.com/token",
        "project_id": FIRESTORE_TEST_PROJECT,
    }
    return service_account.Credentials.from_service_account_info(info)


def factory(storage_bucket: str, signing_credentials: Any) -> AppFactory:
    prefix = unique_prefix()

    def store() -> FirestoreStore:
        content = CloudStorageContentStore(
            storage_bucket,
            project=FIRESTORE_TEST_PROJECT,
            signing_credentials=signing_credentials,
        )
        return FirestoreStore(project=FIRESTORE_TEST_PROJECT, prefix=prefix, content=content)

    return app_factory(store)


@pytest.fixture
def app_client(firestore_emulator: str, storage_bucket: str, signer: Any) -> AppFactory:
    return factory(storage_bucket, signer)


def goog4_string_to_sign(url: str) -> bytes:
    """What a V4 signed URL's signature covers, by Cloud Storage's documented algorithm:
    every query parameter but the signature."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "X-Goog-Signature"]
    canonical_query = "&".join(
        f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in sorted(query)
    )
    params = dict(query)
    canonical = "\n".join(
        ["GET", parts.path, canonical_query, f"host:{parts.netloc}", "", "host", "UNSIGNED-PAYLOAD"]
    )
    scope = params["X-Goog-Credential"].split("/", 1)[1]
    return "\n".join(
        [
            "GOOG4-RSA-SHA256",
            params["X-Goog-Date"],
            scope,
            hashlib.sha256(canonical.encode()).hexdigest(),
        ]
    ).encode()


def signed_by(url: str, public_key: Any) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    signature = bytes.fromhex(dict(parse_qsl(urlsplit(url).query))["X-Goog-Signature"])
    try:
        public_key.verify(signature, goog4_string_to_sign(url), padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        return False
    return True


async def test_both_versions_answer_signed_urls_of_the_exact_bytes(
    app_client: AppFactory, signing_key: Any, storage_bucket: str
) -> None:
    async with app_client(content_signed_urls=True, content_url_ttl_s=90) as (client, app):
        sent = (await call(client, app, rpc("message/send", message_v03()))).json()["result"]
        check_v03_artifact(sent["artifacts"][0])
        got = (await call(client, app, rpc("tasks/get", {"id": sent["id"]}))).json()["result"]
        url = check_v03_photo(got["artifacts"][0]["parts"][0])

        streamed = await call(client, app, rpc("message/stream", message_v03()))
        events = [data["result"] for _, data in parse_sse(streamed.text)]
        [update] = [e for e in events if e.get("kind") == "artifact-update"]
        check_v03_artifact(update["artifact"])

        got10 = await call(client, app, rpc("GetTask", {"id": sent["id"]}), headers=V10)
        check_v10_photo(got10.json()["result"]["artifacts"][0]["parts"][0])
        streamed10 = await call(
            client, app, rpc("SendStreamingMessage", message_v10()), headers=V10
        )
        events10 = [data["result"] for _, data in parse_sse(streamed10.text)]
        [update10] = [e["artifactUpdate"] for e in events10 if "artifactUpdate" in e]
        check_v10_photo(update10["artifact"]["parts"][0])

        # The store keeps the bytes; the bucket has the file's own object beside its JSON.
        record = await app.runtime.store.get_task(sent["id"])
        assert record.task.artifacts[0].parts[0].raw == base64.b64encode(PHOTO).decode()

    from google.cloud import storage  # type: ignore[attr-defined]

    bucket = storage.Client(project=FIRESTORE_TEST_PROJECT).bucket(storage_bucket)
    blobs = list(bucket.client.list_blobs(bucket, prefix=task_prefix(sent["id"])))
    [file_blob] = [b for b in blobs if b.name.endswith(FILE_SUFFIX)]
    assert file_blob.content_type == "image/png"

    params = dict(parse_qsl(urlsplit(url).query))
    assert params["X-Goog-Algorithm"] == "GOOG4-RSA-SHA256"
    assert params["X-Goog-Expires"] == "90"
    public_key = signing_key.public_key()
    assert signed_by(url, public_key)
    longer = url.replace("X-Goog-Expires=90", f"X-Goog-Expires={MAX_URL_TTL_S}")
    assert not signed_by(longer, public_key)


async def test_credentials_that_cannot_sign_leave_the_bytes_inline(
    firestore_emulator: str, storage_bucket: str
) -> None:
    """The emulator's anonymous credentials have no key and no service account: the answer
    carries the bytes (logged as a warning), never an error."""
    async with factory(storage_bucket, None)(content_signed_urls=True) as (client, app):
        sent = (await call(client, app, rpc("message/send", message_v03()))).json()["result"]
        photo = sent["artifacts"][0]["parts"][0]["file"]
        assert base64.b64decode(photo["bytes"]) == PHOTO and "uri" not in photo
