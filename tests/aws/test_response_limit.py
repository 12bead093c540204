"""The Lambda response budget's quick bound: never below the exact count of the envelope, so
that an answer it lets through without counting always fits, and one near the limit is still
counted exactly (and refused when over)."""

from __future__ import annotations

import random

import pytest

from a2a_serverless.http import JSON_HEADERS, Headers, Response, json_response
from a2a_serverless_aws.response_limit import LambdaResponseBudget

BODIES = [
    b"",
    b'{"jsonrpc":"2.0","id":1,"result":{"id":"t"}}',
    '{"text":"h\u00e9llo \u4e16\u754c \U0001f600"}'.encode(),
    b'"\\"\\\\\n\t\x00\x01\x1f"',
    b"\xff\xfe\x80 not UTF-8",
    bytes(range(256)),
]
HEADERS: list[Headers] = [
    [],
    JSON_HEADERS,
    [(b"content-type", b"application/octet-stream")],
    [*JSON_HEADERS, (b"x-a2a-extensions", "\u00e9\x01".encode("latin-1"))],
]


def exact(budget: LambdaResponseBudget, response: Response) -> int:
    body = response.body
    if not body:
        size = 0
    elif budget.is_text(response.headers):
        size = budget.text_size(body)
    else:
        size = budget.binary_size(len(body))
    return budget.overhead(response.status, response.headers) + size


@pytest.mark.parametrize("headers", HEADERS)
@pytest.mark.parametrize("body", BODIES)
def test_the_bound_is_never_below_the_exact_count(headers: Headers, body: bytes) -> None:
    budget = LambdaResponseBudget()
    response = Response(200, headers, body)
    assert budget.bound(200, headers, len(body)) >= exact(budget, response)


def test_the_bound_holds_for_random_bytes() -> None:
    rng = random.Random(34)
    budget = LambdaResponseBudget()
    for _ in range(200):
        body = rng.randbytes(rng.randrange(1, 300))
        for headers in HEADERS:
            assert budget.bound(200, headers, len(body)) >= exact(
                budget, Response(200, headers, body)
            )


async def test_an_answer_near_the_limit_is_counted_and_refused_when_over() -> None:
    # Escapes make this body's envelope about six times its size: the bound lets it through
    # only when that fits.
    text = "\x01" * 1000
    response = json_response(200, {"text": text})
    cost = exact(LambdaResponseBudget(), response)
    assert cost > 6000
    kept = await LambdaResponseBudget(cost, compress=False).fit(response, {})
    assert kept.status == 200 and kept.body == response.body
    refused = await LambdaResponseBudget(cost - 1, compress=False).fit(
        json_response(200, {"text": text}), {}
    )
    assert refused.status == 400
    assert b"A2A_MAX_RESPONSE_BYTES" in refused.body
