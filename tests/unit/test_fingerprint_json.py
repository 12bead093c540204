"""`service.fingerprint_json` writes exactly the bytes `json.dumps` did, and
`service.request_fingerprint` digests what it always did: stored idempotency keys are digests of
them, so one byte otherwise would make every retry a new task."""

from __future__ import annotations

import hashlib
import json
import random
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from a2a_serverless.models import (
    Message,
    Part,
    SendMessageConfiguration,
    SendMessageRequest,
    TaskPushNotificationConfig,
)
from a2a_serverless.service import (
    _fingerprinted_message,
    fingerprint_json,
    request_fingerprint,
)
from a2a_serverless.store import legacy

SEED = 34


def _stdlib(value: dict[str, Any]) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _text(rng: random.Random) -> str:
    def char() -> str:
        pick = rng.random()
        if pick < 0.3:
            return chr(rng.randrange(0, 0x80))  # ASCII, control characters and quotes too
        if pick < 0.6:
            return chr(rng.randrange(0x80, 0xD800))
        if pick < 0.7:
            return rng.choice('"\\/\u2028\u2029\ufeff\x7f\x00\n\t')
        return chr(rng.randrange(0xE000, 0x110000))

    return "".join(char() for _ in range(rng.randrange(0, 12)))


def _value(rng: random.Random, depth: int, floats: bool) -> Any:
    kinds = ["str", "int", "bigint", "bool", "null"] + (["float"] if floats else [])
    if depth < 4:
        kinds += ["list", "dict", "dict"]
    kind = rng.choice(kinds)
    if kind == "str":
        return _text(rng)
    if kind == "int":
        return rng.randrange(-(2**63), 2**63)
    if kind == "bigint":
        return rng.choice([-1, 1]) * rng.randrange(2**63, 2**100)
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "float":
        return rng.choice([0.1, 1e16, -0.0, 1.5e-7, 123456789.125, rng.uniform(-1e20, 1e20)])
    if kind == "list":
        return [_value(rng, depth + 1, floats) for _ in range(rng.randrange(0, 4))]
    return {_text(rng): _value(rng, depth + 1, floats) for _ in range(rng.randrange(0, 5))}


@pytest.mark.parametrize("floats", [False, True], ids=["msgspec's", "with floats"])
def test_random_requests_give_the_stdlib_bytes(floats: bool) -> None:
    rng = random.Random(SEED)
    for _ in range(5000):
        canonical = {_text(rng): _value(rng, 0, floats) for _ in range(rng.randrange(1, 6))}
        assert fingerprint_json(canonical) == _stdlib(canonical), canonical


def test_a_message_like_request_gives_the_stdlib_bytes() -> None:
    canonical = {
        "message": {
            "role": "user",
            "kind": "message",
            "parts": [
                {"kind": "text", "text": 'héllo, 世界 \U0001f600 "quoted" \\ \n\t\x01'},
                {"kind": "data", "data": {"z": [1, 2.5, None, True], "a": {"é": "x"}}},
            ],
        },
        "acceptedOutputModes": ["text/plain"],
        "pushNotificationConfig": None,
        "metadata": {"n": 10**30, "f": 1e16},
    }
    assert fingerprint_json(canonical) == _stdlib(canonical)
    del canonical["metadata"]
    canonical["message"]["parts"].pop()  # no float left: msgspec writes it
    assert fingerprint_json(canonical) == _stdlib(canonical)


def _fingerprint_from_json(params: SendMessageRequest) -> str:
    """`request_fingerprint` as it was first written: over the message's JSON, in its old
    form, through `json.dumps`."""
    message = legacy.old_message(params.message.model_dump())
    message.pop("messageId", None)
    config = params.configuration
    push = config.task_push_notification_config if config else None
    canonical = {
        "message": {k: v for k, v in message.items() if v not in (None, [], {})},
        "acceptedOutputModes": (config.accepted_output_modes or None) if config else None,
        "pushNotificationConfig": None if push is None else {"url": push.url},
        "metadata": params.metadata or None,
    }
    return hashlib.sha256(_stdlib(canonical)).hexdigest()


def _part(rng: random.Random) -> Part:
    metadata = rng.choice([None, None, {}, {"k": _value(rng, 1, floats=True)}])
    pick = rng.random()
    if pick < 0.5:
        return Part(text=_text(rng), metadata=metadata, media_type=rng.choice([None, "text/x"]))
    if pick < 0.65:
        return Part(raw="aGk=", media_type="text/plain", filename=rng.choice([None, "a.txt"]))
    if pick < 0.8:
        return Part(url="https://x/y.png", metadata=metadata)
    return Part(data=_value(rng, 0, floats=rng.random() < 0.5), metadata=metadata)


def test_a_request_s_fingerprint_is_the_one_its_json_gave() -> None:
    """Made from the message's fields, a fingerprint is still the digest of its JSON in the old
    form: the idempotency keys stored before name the same requests."""
    rng = random.Random(SEED)
    for _ in range(2000):
        message = Message(
            message_id=_text(rng),
            role=rng.choice(["user", "agent"]),
            parts=[_part(rng) for _ in range(rng.randrange(1, 4))],
            context_id=rng.choice([None, "", "c-1"]),
            task_id=rng.choice([None, "t-1"]),
            reference_task_ids=rng.choice([None, [], ["t-0"]]),
            extensions=rng.choice([None, [], ["https://ext/1"]]),
            metadata=rng.choice([None, {}, {"m": _value(rng, 1, floats=rng.random() < 0.5)}]),
        )
        configuration = rng.choice(
            [
                None,
                SendMessageConfiguration(accepted_output_modes=rng.choice([None, [], ["a/b"]])),
                SendMessageConfiguration(
                    task_push_notification_config=TaskPushNotificationConfig(url="https://h/")
                ),
            ]
        )
        params = SendMessageRequest(
            message=message,
            configuration=configuration,
            metadata=rng.choice([None, {}, {"x": _value(rng, 1, floats=True)}]),
        )
        assert request_fingerprint(params) == _fingerprint_from_json(params), params


def test_values_the_json_converts_are_fingerprinted_as_their_json() -> None:
    """Metadata given in code may hold what only the message's JSON makes plain (a tuple, a
    datetime): the fingerprint is taken over that JSON, as it always was."""
    moment = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    message = Message(
        message_id="m",
        role="user",
        parts=[Part(text="hi")],
        metadata={"when": moment, "pair": (1, 2)},
    )
    params = SendMessageRequest(message=message)
    assert request_fingerprint(params) == _fingerprint_from_json(params)


def test_every_field_of_a_message_is_fingerprinted() -> None:
    """`_fingerprinted_message` names a message's fields one by one (its JSON is not made): a
    field added to `Message` must be added there too, or a retry changing only that field would
    be taken for the same request."""
    names = {field.encode_name for field in msgspec.structs.fields(Message)}
    message = Message(
        message_id="m",
        role="user",
        parts=[Part(text="hi")],
        context_id="c",
        task_id="t",
        reference_task_ids=["r"],
        extensions=["https://ext/1"],
        metadata={"k": 1},
    )
    written, _ = _fingerprinted_message(message)
    assert set(written) == (names - {"messageId"}) | {"kind"}
