"""The agent card for both protocol versions, and its caching headers (spec v1.0 §8.6)."""

from __future__ import annotations

from email.utils import formatdate, parsedate_to_datetime
from typing import Any

from a2a_serverless import agent

CARD = "/.well-known/agent-card.json"


@agent(name="Carded", description="Has a card.")
def carded(text: str) -> str:
    return text


async def test_card_lists_v10_interfaces_first_and_keeps_v03_fields(make_client: Any) -> None:
    async with make_client(carded, public_url="https://agent.example.com") as (client, _):
        card = (await client.get(CARD)).json()
        assert card["supportedInterfaces"] == [
            {
                "url": "https://agent.example.com/",
                "protocolBinding": "JSONRPC",
                "protocolVersion": "1.0",
            },
            {
                "url": "https://agent.example.com",
                "protocolBinding": "HTTP+JSON",
                "protocolVersion": "1.0",
            },
            {
                "url": "https://agent.example.com/",
                "protocolBinding": "JSONRPC",
                "protocolVersion": "0.3",
            },
            {
                "url": "https://agent.example.com",
                "protocolBinding": "HTTP+JSON",
                "protocolVersion": "0.3",
            },
        ]
        # v0.3 clients read these, as before.
        assert card["url"] == "https://agent.example.com/"
        assert card["protocolVersion"] == "0.3.0"
        assert card["preferredTransport"] == "JSONRPC"
        assert card["capabilities"]["extendedAgentCard"] is False


async def test_card_has_validators_and_a_conditional_get_answers_304(make_client: Any) -> None:
    async with make_client(carded, public_url="https://agent.example.com") as (client, _):
        first = await client.get(CARD)
        assert first.status_code == 200
        etag = first.headers["etag"]
        assert etag.startswith('"') and etag.endswith('"')
        assert first.headers["cache-control"] == "public, max-age=300"
        modified = parsedate_to_datetime(first.headers["last-modified"])

        again = await client.get(CARD, headers={"If-None-Match": etag})
        assert again.status_code == 304
        assert again.content == b""
        assert again.headers["etag"] == etag
        assert (await client.get(CARD, headers={"If-None-Match": f"W/{etag}"})).status_code == 304
        other = await client.get(CARD, headers={"If-None-Match": '"something-else"'})
        assert other.status_code == 200 and other.json()["name"] == "Carded"

        later = formatdate(modified.timestamp() + 60, usegmt=True)
        earlier = formatdate(modified.timestamp() - 60, usegmt=True)
        assert (await client.get(CARD, headers={"If-Modified-Since": later})).status_code == 304
        assert (await client.get(CARD, headers={"If-Modified-Since": earlier})).status_code == 200
        garbage = await client.get(CARD, headers={"If-Modified-Since": "not a date"})
        assert garbage.status_code == 200
        # If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2).
        both = {"If-None-Match": '"nope"', "If-Modified-Since": later}
        assert (await client.get(CARD, headers=both)).status_code == 200
