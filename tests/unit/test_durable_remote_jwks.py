"""Where a durable call's callback looks for the remote's keys (durable/resume.py,
`remote_jwks_urls`): under the URL we called (a mounted agent serves its JWKS under its
prefix), then at its origin; never anywhere the request or the JWT names."""

from __future__ import annotations

import pytest

from a2a_serverless.durable.resume import remote_jwks_urls

ORIGIN = "https://agents.example.com"
AT_ORIGIN = f"{ORIGIN}/.well-known/jwks.json"


@pytest.mark.parametrize(
    ("remote", "expected"),
    [
        (ORIGIN, [AT_ORIGIN]),
        (f"{ORIGIN}/", [AT_ORIGIN]),
        (f"{ORIGIN}/.well-known/agent-card.json", [AT_ORIGIN]),
        (f"{ORIGIN}/worker", [f"{ORIGIN}/worker/.well-known/jwks.json", AT_ORIGIN]),
        (f"{ORIGIN}/a/b/", [f"{ORIGIN}/a/b/.well-known/jwks.json", AT_ORIGIN]),
        (
            f"{ORIGIN}/worker/.well-known/agent-card.json",
            [f"{ORIGIN}/worker/.well-known/jwks.json", AT_ORIGIN],
        ),
        (
            f"{ORIGIN}/worker/.well-known/agent.json",
            [f"{ORIGIN}/worker/.well-known/jwks.json", AT_ORIGIN],
        ),
        # A card somewhere else says nothing of where its agent is: the origin alone.
        (f"{ORIGIN}/cards/worker.json", [AT_ORIGIN]),
        (
            "http://127.0.0.1:8080/agent",
            [
                "http://127.0.0.1:8080/agent/.well-known/jwks.json",
                "http://127.0.0.1:8080/.well-known/jwks.json",
            ],
        ),
    ],
)
def test_the_keys_are_looked_for_under_the_remote_then_at_its_origin(
    remote: str, expected: list[str]
) -> None:
    assert remote_jwks_urls(remote) == expected
