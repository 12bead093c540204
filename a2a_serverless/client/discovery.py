"""The agent card, fetched and cached, and the interface the client speaks, chosen from it.

`fetch_card(url)` reads `{url}/.well-known/agent-card.json` (or `url` itself when it names a
card), keeping it per process as long as `Cache-Control: max-age` says, then revalidating with
`If-None-Match` when the agent sent an ETag (a card fetched with credentials is not kept).
`interfaces(card)` lists what a card offers that this client speaks, in the card's order: A2A
1.0's `supportedInterfaces`, else an 0.3 card's `url` (`preferredTransport`) and
`additionalInterfaces`. `choose` takes 1.0 before 0.3 and,
within a version, the preferred binding.

Interface URLs come from data, not from the caller: one on another origin than the URL the
caller configured is checked by the SSRF guard (`push/ssrf.py`) before it is used.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..routepaths import CARD_PATH
from .errors import AgentUnreachable, CardError, HTTPStatusError
from .transport import ClientLimits, fetch
from .wire import Binding, Version

BINDINGS: tuple[Binding, ...] = ("JSONRPC", "HTTP+JSON")
_MAX_AGE = re.compile(r"(?:^|,)\s*max-age\s*=\s*(\d+)", re.IGNORECASE)
# The longest a card is kept without asking again, whatever the agent says.
MAX_CARD_AGE_S = 3600


@dataclass(frozen=True, slots=True)
class Interface:
    url: str
    version: Version
    binding: Binding


@dataclass(slots=True)
class _Cached:
    card: dict[str, Any]
    etag: str | None
    fresh_until: float


_cache: dict[str, _Cached] = {}


def card_url(url: str) -> str:
    """Where the card of the agent at `url` is (`url` itself when it names a `.json` file)."""
    if urlsplit(url).path.endswith(".json"):
        return url
    return url.rstrip("/") + CARD_PATH


async def fetch_card(
    url: str, *, headers: dict[str, str] | None = None, limits: ClientLimits | None = None
) -> dict[str, Any]:
    """The card of the agent at `url` (see the module for caching)."""
    limits = limits or ClientLimits()
    where = card_url(url)
    # A card fetched with credentials is the caller's alone: neither read from nor kept in
    # the process's cache.
    cached = None if headers else _cache.get(where)
    now = time.monotonic()
    if cached is not None and now < cached.fresh_until:
        return cached.card
    request_headers = {"Accept": "application/json", **(headers or {})}
    if cached is not None and cached.etag:
        request_headers["If-None-Match"] = cached.etag
    answer = await fetch(
        "GET",
        where,
        headers=request_headers,
        content=None,
        limits=limits,
        max_bytes=limits.max_card_bytes,
        limit_name="max_card_bytes",
    )
    if answer.status == 304 and cached is not None:
        cached.fresh_until = now + _max_age(answer.headers.get("cache-control"))
        return cached.card
    if answer.status != 200:
        raise HTTPStatusError(answer.status, f"the agent card at {where} was not served")
    try:
        card = answer.json()
    except ValueError as exc:
        raise CardError(f"the agent card at {where} is not JSON: {exc}") from None
    if not isinstance(card, dict):
        raise CardError(f"the agent card at {where} is not a JSON object")
    cache_control = answer.headers.get("cache-control")
    if not headers and (not cache_control or "no-store" not in cache_control.lower()):
        _cache[where] = _Cached(card, answer.headers.get("etag"), now + _max_age(cache_control))
    return card


def _max_age(cache_control: str | None) -> float:
    if not cache_control or "no-cache" in cache_control.lower():
        return 0.0
    found = _MAX_AGE.search(cache_control)
    return float(min(int(found[1]), MAX_CARD_AGE_S)) if found else 0.0


def _version(text: Any) -> Version | None:
    if not isinstance(text, str):
        return None
    parts = text.strip().split(".")
    if parts[:2] == ["1", "0"] or parts == ["1"]:
        return "1.0"
    if parts[:2] == ["0", "3"]:
        return "0.3"
    return None


def interfaces(card: dict[str, Any]) -> list[Interface]:
    """What the card offers that this client speaks, in the card's order."""
    found: list[Interface] = []
    for item in card.get("supportedInterfaces") or ():
        if not isinstance(item, dict):
            continue
        version = _version(item.get("protocolVersion"))
        binding = item.get("protocolBinding")
        url = item.get("url")
        if version and binding in BINDINGS and isinstance(url, str) and url:
            found.append(Interface(url, version, binding))
    if found:
        return found
    # An A2A 0.3 card: `url` speaks `preferredTransport` (JSON-RPC when it says none).
    if _version(card.get("protocolVersion")) not in (None, "0.3"):
        return found
    main = card.get("url")
    if isinstance(main, str) and main:
        preferred = card.get("preferredTransport") or "JSONRPC"
        if preferred in BINDINGS:
            found.append(Interface(main, "0.3", preferred))
    for item in card.get("additionalInterfaces") or ():
        if isinstance(item, dict) and item.get("transport") in BINDINGS:
            url = item.get("url")
            if isinstance(url, str) and url:
                candidate = Interface(url, "0.3", item["transport"])
                if candidate not in found:
                    found.append(candidate)
    return found


def choose(
    card: dict[str, Any], *, binding: Binding | None = None, version: Version | None = None
) -> Interface:
    """The interface to use: 1.0 before 0.3 (unless `version` is asked for), `binding` before
    the other (the card's order otherwise). CardError when the card offers nothing usable."""
    offered = interfaces(card)
    if version is not None:
        offered = [i for i in offered if i.version == version]
    if not offered:
        wanted = f"A2A {version}" if version else "A2A 1.0 or 0.3"
        raise CardError(f"the card offers no {wanted} interface over JSON-RPC or HTTP+JSON")

    def rank(item: tuple[int, Interface]) -> tuple[int, int, int]:
        index, interface = item
        return (
            0 if interface.version == "1.0" else 1,
            0 if binding is None or interface.binding == binding else 1,
            index,
        )

    return min(enumerate(offered), key=rank)[1]


def same_origin(a: str, b: str) -> bool:
    one, two = urlsplit(a), urlsplit(b)
    return (one.scheme.lower(), one.hostname, one.port) == (
        two.scheme.lower(),
        two.hostname,
        two.port,
    )


async def check_data_url(url: str, configured: str, *, allow_private: bool) -> None:
    """Refuse a URL taken from data (a card) that the SSRF guard refuses, unless it is on the
    configured URL's origin (which the caller chose)."""
    if same_origin(url, configured):
        return
    from ..push.ssrf import HostUnresolvable, UrlGuard, UrlRefused

    try:
        await UrlGuard(dev_mode=allow_private).resolve_for_send(url)
    except UrlRefused as exc:
        raise CardError(f"the card names a URL this client will not call: {exc}") from None
    except HostUnresolvable as exc:
        raise AgentUnreachable(f"the card's URL {url} does not resolve: {exc}") from None
