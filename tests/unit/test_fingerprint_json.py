"""`service.fingerprint_json` writes exactly the bytes `json.dumps` did: stored idempotency keys
are digests of them, so one byte otherwise would make every retry a new task."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from a2a_serverless.service import fingerprint_json

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
