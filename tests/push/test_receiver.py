"""WebhookVerifier: what a receiver of our notifications checks, and key rotation."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import time
from typing import Any

import jwt
import pytest

from a2a_serverless.push import (
    BadSignature,
    BodyMismatch,
    ClaimMismatch,
    ExpiredNotification,
    KeyRing,
    KeySetUnavailable,
    MalformedNotification,
    MemoryReplayCache,
    MissingSignature,
    ReplayedNotification,
    TokenMismatch,
    UnknownKey,
    WebhookVerifier,
    generate_key,
)
from a2a_serverless.push.keys import parse_signing_keys
from a2a_serverless.push.payload import encode_task
from a2a_serverless.push.signing import JwtSigner

from .conftest import HarnessFactory
from .webhook_server import Reply, WebhookServer

AUDIENCE = "https://receiver.example.com/a2a/webhook"
TASK = {"id": "task-1", "contextId": "ctx", "kind": "task", "status": {"state": "completed"}}


def ring_of(*keys: dict[str, Any]) -> KeyRing:
    return KeyRing(parse_signing_keys(json.dumps(list(keys))))


@pytest.fixture(scope="module")
def ring() -> KeyRing:
    return ring_of(generate_key())


def notification(
    ring: KeyRing,
    *,
    task: dict[str, Any] = TASK,
    audience: str = AUDIENCE,
    token: str | None = "tok",
    now: float | None = None,
    nid: str = "n-1",
) -> tuple[dict[str, str], bytes]:
    body = encode_task(task)
    signed, _ = JwtSigner(ring, issuer="https://agent.example.com").sign(
        body, audience, task["id"], notification_id=nid, seq=3, now=now
    )
    headers = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {signed}",
        "X-A2A-Notification-Id": nid,
        "X-A2A-Notification-Seq": "3",
    }
    if token is not None:
        headers["X-A2A-Notification-Token"] = token
    return headers, body


def verifier(ring: KeyRing, **options: Any) -> WebhookVerifier:
    return WebhookVerifier(jwks=ring.jwks(), audience=AUDIENCE, **options)


async def test_a_genuine_notification_verifies(ring: KeyRing) -> None:
    headers, body = notification(ring)
    verified = await verifier(ring, token="tok", issuer="https://agent.example.com").verify(
        headers, body
    )
    assert verified.task == TASK and verified.task_id == "task-1"
    assert verified.notification_id == "n-1" and verified.seq == 3
    assert verified.key_id == ring.current.kid


async def test_header_names_are_case_insensitive(ring: KeyRing) -> None:
    headers, body = notification(ring)
    lowered = {k.lower(): v for k, v in headers.items()}
    await verifier(ring).verify(lowered, body)


async def test_a_changed_body_is_rejected(ring: KeyRing) -> None:
    headers, body = notification(ring)
    forged = body.replace(b"completed", b"failed")
    with pytest.raises(BodyMismatch):
        await verifier(ring).verify(headers, forged)


async def test_a_token_for_another_receiver_is_rejected(ring: KeyRing) -> None:
    headers, body = notification(ring, audience="https://other.example.com/hook")
    with pytest.raises(ClaimMismatch, match="audience"):
        await verifier(ring).verify(headers, body)


async def test_the_wrong_issuer_is_rejected(ring: KeyRing) -> None:
    headers, body = notification(ring)
    with pytest.raises(ClaimMismatch, match="issuer"):
        await verifier(ring, issuer="https://someone-else.example.com").verify(headers, body)


async def test_an_old_notification_is_rejected(ring: KeyRing) -> None:
    headers, body = notification(ring, now=time.time() - 301)
    with pytest.raises(ExpiredNotification):
        await verifier(ring, leeway_s=0).verify(headers, body)
    # iat older than max_age_s, even while exp has not passed yet
    headers, body = notification(ring, now=time.time() - 120)
    with pytest.raises(ExpiredNotification, match=r"signed 1[12][0-9] s ago"):
        await verifier(ring, max_age_s=60).verify(headers, body)


async def test_a_notification_from_the_future_is_rejected(ring: KeyRing) -> None:
    headers, body = notification(ring, now=time.time() + 600)
    with pytest.raises(ExpiredNotification):
        await verifier(ring).verify(headers, body)


async def test_a_replayed_jwt_is_rejected(ring: KeyRing) -> None:
    headers, body = notification(ring)
    check = verifier(ring)
    await check.verify(headers, body)
    with pytest.raises(ReplayedNotification):
        await check.verify(headers, body)


async def test_a_rejected_request_does_not_burn_its_jti(ring: KeyRing) -> None:
    headers, body = notification(ring)
    check = verifier(ring, token="tok")
    with pytest.raises(TokenMismatch):
        await check.verify({**headers, "X-A2A-Notification-Token": "wrong"}, body)
    await check.verify(headers, body)


async def test_the_token_is_checked(ring: KeyRing) -> None:
    headers, body = notification(ring, token=None)
    with pytest.raises(TokenMismatch):
        await verifier(ring, token="tok").verify(headers, body)
    headers, body = notification(ring, token="tok")
    with pytest.raises(TokenMismatch):
        await verifier(ring).verify(headers, body, token="other")


async def test_a_missing_or_garbled_jwt_is_rejected(ring: KeyRing) -> None:
    headers, body = notification(ring)
    del headers["Authorization"]
    with pytest.raises(MissingSignature):
        await verifier(ring).verify(headers, body)
    with pytest.raises(MalformedNotification):
        await verifier(ring).verify({**headers, "Authorization": "Bearer not.a.jwt"}, body)
    with pytest.raises(MissingSignature):
        await verifier(ring).verify({**headers, "Authorization": "Basic dXNlcjpwdw=="}, body)


async def test_alg_none_and_hmac_with_the_public_key_are_rejected(ring: KeyRing) -> None:
    headers, body = notification(ring)
    claims = jwt.decode(headers["Authorization"][7:], options={"verify_signature": False})
    unsigned = jwt.encode(claims, "", algorithm="none", headers={"kid": ring.current.kid})
    with pytest.raises(BadSignature, match="'none'"):
        await verifier(ring).verify({**headers, "Authorization": f"Bearer {unsigned}"}, body)
    # The classic confusion: HS256 "signed" with the public key as the shared secret.
    public_pem = json.dumps(ring.jwks()["keys"][0]).encode()
    hmac_token = _hs256(claims, public_pem, ring.current.kid)
    with pytest.raises(BadSignature, match="HS256"):
        await verifier(ring).verify({**headers, "Authorization": f"Bearer {hmac_token}"}, body)
    with pytest.raises(ValueError):
        WebhookVerifier(jwks=ring.jwks(), audience=AUDIENCE, algorithms=["HS256"])


async def test_a_signature_by_another_key_with_our_kid_is_rejected(ring: KeyRing) -> None:
    impostor_key = {**generate_key(), "kid": ring.current.kid}
    headers, body = notification(ring_of(impostor_key))
    with pytest.raises(BadSignature):
        await verifier(ring).verify(headers, body)


async def test_an_unknown_key_is_rejected(ring: KeyRing) -> None:
    headers, body = notification(ring_of(generate_key()))
    with pytest.raises(UnknownKey):
        await verifier(ring).verify(headers, body)


async def test_the_signed_task_id_and_notification_id_must_match(ring: KeyRing) -> None:
    headers, body = notification(ring)
    with pytest.raises(ClaimMismatch, match="X-A2A-Notification-Id"):
        await verifier(ring).verify({**headers, "X-A2A-Notification-Id": "n-2"}, body)


def test_memory_replay_cache_forgets_expired_ids_and_stays_bounded() -> None:
    cache = MemoryReplayCache(max_entries=3)
    now = time.time()
    assert cache.add("a", now + 60) and not cache.add("a", now + 60)
    assert cache.add("old", now - 1) and cache.add("old", now + 60)  # expired: new again
    for name in "bcdef":
        assert cache.add(name, now + 60)
    assert len(cache._seen) <= 3


# --- the JWKS over HTTP: caching, refresh on a new kid, rotation -----------------------------


async def test_jwks_is_fetched_once_and_cached(ring: KeyRing) -> None:
    server = await WebhookServer(
        lambda r: Reply(200, body=json.dumps(ring.jwks()).encode())
    ).start()
    try:
        check = WebhookVerifier(server.url("/.well-known/jwks.json"), audience=AUDIENCE)
        for _ in range(3):
            await check.verify(*notification(ring))
        assert len(server.requests) == 1
    finally:
        await server.stop()


async def test_an_unreachable_jwks_is_not_the_senders_fault(ring: KeyRing) -> None:
    server = await WebhookServer(lambda r: Reply(503)).start()
    try:
        check = WebhookVerifier(server.url("/jwks"), audience=AUDIENCE)
        with pytest.raises(KeySetUnavailable):
            await check.verify(*notification(ring))
    finally:
        await server.stop()
    check = WebhookVerifier(server.url("/jwks"), audience=AUDIENCE)
    with pytest.raises(KeySetUnavailable):  # connection refused
        await check.verify(*notification(ring))


async def test_key_rotation_old_signatures_still_verify_new_ones_use_the_new_key() -> None:
    old_key = {**generate_key(), "iat": 1_000}
    new_key = {**generate_key(), "iat": 2_000}
    published = {"ring": ring_of(old_key)}
    server = await WebhookServer(
        lambda r: Reply(200, body=json.dumps(published["ring"].jwks()).encode())
    ).start()
    try:
        check = WebhookVerifier(
            server.url("/.well-known/jwks.json"), audience=AUDIENCE, jwks_min_refresh_s=0
        )
        before = notification(published["ring"], nid="before")
        await check.verify(*before)
        # Rotate: both keys published, the new one signs.
        published["ring"] = ring_of(old_key, new_key)
        in_flight = notification(ring_of(old_key), nid="in-flight")  # signed just before
        after = notification(published["ring"], nid="after")
        assert jwt.get_unverified_header(after[0]["Authorization"][7:])["kid"] == new_key["kid"]
        await check.verify(*after)  # unknown kid: the verifier fetches the JWKS again
        await check.verify(*in_flight)  # the old key is still published
        assert len(server.requests) == 2
    finally:
        await server.stop()


async def test_unknown_kids_do_not_hammer_the_jwks_endpoint(ring: KeyRing) -> None:
    server = await WebhookServer(
        lambda r: Reply(200, body=json.dumps(ring.jwks()).encode())
    ).start()
    try:
        check = WebhookVerifier(server.url("/jwks"), audience=AUDIENCE, jwks_min_refresh_s=60)
        stranger = ring_of(generate_key())
        for _ in range(5):
            with pytest.raises(UnknownKey):
                await check.verify(*notification(stranger))
        assert len(server.requests) == 1
    finally:
        await server.stop()


async def test_verify_sync_for_synchronous_receivers(ring: KeyRing) -> None:
    server = await WebhookServer(
        lambda r: Reply(200, body=json.dumps(ring.jwks()).encode())
    ).start()
    try:
        check = WebhookVerifier(server.url("/jwks"), audience=AUDIENCE)
        headers, body = notification(ring)
        verified = await asyncio.to_thread(check.verify_sync, headers, body)
        assert verified.task_id == "task-1"
        with pytest.raises(ReplayedNotification):
            await asyncio.to_thread(check.verify_sync, headers, body)
    finally:
        await server.stop()


async def test_key_rotation_end_to_end_through_the_notifier(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    old_key = {**generate_key(), "iat": 1_000}
    new_key = {**generate_key(), "iat": 2_000}
    before = await harness(push_signing_keys=json.dumps([old_key]))
    after = await harness(push_signing_keys=json.dumps([old_key, new_key]))
    published = {"doc": before.notifier.jwks_document()}
    jwks = await WebhookServer(
        lambda r: Reply(200, body=json.dumps(published["doc"]).encode())
    ).start()
    try:
        await before.send("hello", webhook.url())
        await before.drain()
        published["doc"] = after.notifier.jwks_document()  # the rotated deployment is live
        await after.send("hello", webhook.url())
        await after.drain()
        first, second = webhook.notifications()
        kids = [
            jwt.get_unverified_header(r.headers["authorization"][7:])["kid"]
            for r in (first, second)
        ]
        assert kids == [old_key["kid"], new_key["kid"]]
        check = WebhookVerifier(jwks.url("/jwks"), audience=webhook.url(), jwks_min_refresh_s=0)
        await check.verify(second.headers, second.body)
        await check.verify(first.headers, first.body)
    finally:
        await jwks.stop()


def _hs256(claims: dict[str, Any], secret: bytes, kid: str) -> str:
    import hmac

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    header = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": kid}).encode())
    payload = b64(json.dumps(claims).encode())
    signature = hmac.new(secret, f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{b64(signature)}"


# --- the key rules and the fetcher it shares with bearer authentication (a2a_serverless.jwks) --


async def test_keys_not_for_verifying_are_not_trusted(ring: KeyRing) -> None:
    headers, body = notification(ring)
    (public,) = ring.jwks()["keys"]
    for unusable in ({**public, "key_ops": ["sign"]}, {**public, "use": "enc"}, {"kty": "oct"}):
        check = WebhookVerifier(jwks={"keys": [unusable]}, audience=AUDIENCE)
        with pytest.raises(UnknownKey):
            await check.verify(headers, body)


async def test_a_kid_naming_a_key_of_another_type_is_a_bad_signature(ring: KeyRing) -> None:
    rsa_key = {**generate_key("RS256"), "kid": ring.current.kid}  # the EC key's kid
    headers, body = notification(ring_of(rsa_key))
    with pytest.raises(BadSignature, match="RS256"):
        await verifier(ring).verify(headers, body)


async def test_verify_sync_follows_no_redirect(ring: KeyRing) -> None:
    served = json.dumps(ring.jwks()).encode()
    server = await WebhookServer(
        lambda r: (
            Reply(200, body=served) if r.path == "/jwks" else Reply(302, {"Location": "/jwks"})
        )
    ).start()
    try:
        check = WebhookVerifier(server.url("/moved"), audience=AUDIENCE)
        with pytest.raises(KeySetUnavailable):
            await asyncio.to_thread(check.verify_sync, *notification(ring))
        assert [r.path for r in server.requests] == ["/moved"]
    finally:
        await server.stop()


async def test_a_jwks_never_fetched_stays_unavailable_during_the_back_off(ring: KeyRing) -> None:
    server = await WebhookServer(lambda r: Reply(503)).start()
    try:
        check = WebhookVerifier(server.url("/jwks"), audience=AUDIENCE, jwks_min_refresh_s=60)
        for _ in range(3):  # never "unknown key": that 4xx would make the agent give up
            with pytest.raises(KeySetUnavailable):
                await check.verify(*notification(ring))
        assert len(server.requests) == 1
    finally:
        await server.stop()
