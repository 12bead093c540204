"""The SSRF guard: which webhook URLs the agent may call, and at which address.

A push notification config's URL comes from a client, so the agent must never let it point at
something only the agent can reach: its own loopback, the VPC's private ranges, the cloud's
metadata endpoint. The guard runs twice:

- `check_at_set_time(url)` when a config is set: a malformed URL, a non-https URL outside dev
  mode, a host outside the allowlist, an address literal in a forbidden range, or a host that
  resolves to one is refused. A host that does not resolve (yet) is accepted: it is checked
  again at every send.
- `resolve_for_send(url)` before every delivery: the host is resolved and every address it
  resolves to must be allowed; the result is a `PinnedTarget` naming the address that was
  checked, and the delivery connects to exactly that address (the hostname only goes into the
  Host header, SNI and certificate check), so DNS cannot answer differently in between.

Address literals are read the way browsers and `inet_aton` read them (WHATWG URL standard):
`127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1` and `0x7f.1` are all 127.0.0.1, and an
IPv4-mapped, IPv4-compatible or NAT64 IPv6 address is judged by the IPv4 address inside it.

With an allowlist (`push_allowed_domains`), a host must be one of its domains or a subdomain
of one (an address literal must be listed exactly); the address checks apply all the same.

Dev mode allows http and loopback receivers (so a webhook on the laptop works) and nothing else
that production refuses: private ranges and metadata endpoints stay forbidden.

Pure standard library: importing this module costs no third-party import.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..exceptions import A2AServerlessError, UnavailableError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Resolves (host, port) to the addresses a connection could go to, as strings.
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]

DEFAULT_PORTS = {"http": 80, "https": 443}

METADATA_ADDRESSES = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),  # AWS, GCP, Azure, OpenStack, ...
        ipaddress.ip_address("169.254.170.2"),  # AWS ECS task metadata
        ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
        ipaddress.ip_address("fd00:ec2::254"),  # AWS IMDS over IPv6
    }
)
METADATA_HOSTNAMES = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.internal",
    }
)

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_UNIQUE_LOCAL = ipaddress.ip_network("fc00::/7")

# A hostname label: letters, digits, hyphens (and underscores, which some DNS names carry).
_LABEL = re.compile(r"^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$")
_UNSAFE_CHARS = re.compile(r"[\x00-\x20\x7f\\]")


class UrlRefused(A2AServerlessError, ValueError):
    """The URL may not be called, ever: the reason says why (a permanent failure)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"{reason}: {url}")
        self.url = url
        self.reason = reason


class HostUnresolvable(UnavailableError):
    """The host did not resolve right now (DNS may recover: a retryable failure)."""

    def __init__(self, host: str, detail: str) -> None:
        super().__init__(f"host {host!r} did not resolve: {detail}")
        self.host = host
        self.detail = detail


@dataclass(frozen=True, slots=True)
class ParsedUrl:
    url: str
    scheme: str
    # Lower-case ASCII (IDNA) hostname without a trailing dot, or the canonical address text.
    host: str
    port: int
    # Path and query as written ("/" when empty); the fragment is dropped.
    target: str
    # Set when the URL's host is an address literal (in any of the forms above).
    literal: IPAddress | None


@dataclass(frozen=True, slots=True)
class PinnedTarget:
    """Where one delivery goes: `ip` was checked, and is the only address connected to."""

    url: str
    scheme: str
    host: str
    port: int
    target: str
    ip: str

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        if self.port == DEFAULT_PORTS[self.scheme]:
            return host
        return f"{host}:{self.port}"

    @property
    def sni(self) -> str | None:
        """The TLS server name (and certificate name) to use: the hostname, if not a literal."""
        if self.scheme != "https" or _as_address(self.host) is not None:
            return None
        return self.host

    @property
    def connect_url(self) -> str:
        """The URL with the checked address in place of the hostname."""
        ip = f"[{self.ip}]" if ":" in self.ip else self.ip
        return f"{self.scheme}://{ip}:{self.port}{self.target}"

    def with_query(self, name: str, value: str) -> PinnedTarget:
        separator = "&" if "?" in self.target else "?"
        target = f"{self.target}{separator}{name}={value}"
        return PinnedTarget(self.url, self.scheme, self.host, self.port, target, self.ip)


# --- address literals ---------------------------------------------------------------------------


def _parse_ipv4_number(part: str) -> int | None:
    """One part of an IPv4 literal: decimal, octal (leading 0) or hex (0x); None if neither."""
    if not part:
        return None
    radix = 10
    if len(part) >= 2 and part[:2] in ("0x", "0X"):
        part, radix = part[2:], 16
    elif len(part) >= 2 and part[0] == "0":
        part, radix = part[1:], 8
    if part == "":
        return 0
    digits = {10: "0123456789", 8: "01234567", 16: "0123456789abcdefABCDEF"}[radix]
    if any(c not in digits for c in part):
        return None
    return int(part, radix)


def parse_ipv4_literal(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address `host` spells in any WHATWG/inet_aton form, or None if it is a name.

    Raises ValueError for a host that ends in a number but is no valid address (`1.2.3.4.5`,
    `256.1.1.1`): browsers refuse those too, rather than looking them up as names.
    """
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts = parts[:-1]
    last = parts[-1]
    if not (last.isascii() and last.isdigit()) and _parse_ipv4_number(last) is None:
        return None  # a name, e.g. example.com
    numbers = [_parse_ipv4_number(p) for p in parts]
    if len(parts) > 4 or any(n is None for n in numbers):
        raise ValueError(f"{host!r} is not a valid IPv4 address")
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        raise ValueError(f"{host!r} is not a valid IPv4 address")
    address = values[-1]
    for index, n in enumerate(values[:-1]):
        address += n * 256 ** (3 - index)
    return ipaddress.IPv4Address(address)


def _as_address(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (mapped, compatible, NAT64, 6to4)."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64 or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip.sixtofour


def forbidden_reason(ip: IPAddress, *, allow_loopback: bool = False) -> str | None:
    """Why a webhook may not go to `ip` (None if it may): loopback, private, metadata, ..."""
    if ip in METADATA_ADDRESSES:
        return "a cloud metadata endpoint"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            return "a scoped (link-local) address"
        inner = embedded_ipv4(ip)
        if inner is not None:
            reason = forbidden_reason(inner, allow_loopback=allow_loopback)
            return None if reason is None else f"{reason} (IPv4 {inner} inside)"
        if ip.is_unspecified:
            return "the unspecified address"
        if ip.is_loopback:
            return None if allow_loopback else "a loopback address"
        if ip.is_link_local:
            return "a link-local address"
        if ip.is_site_local:
            return "a site-local address"
        if ip in _UNIQUE_LOCAL:
            return "a unique-local address (fc00::/7)"
        if ip.is_multicast:
            return "a multicast address"
        if ip in _NAT64_LOCAL or ip.is_reserved or not ip.is_global:
            return "a reserved, non-public address"
        return None
    if ip in _THIS_NETWORK:
        return "the unspecified address (0.0.0.0/8)"
    if ip.is_loopback:
        return None if allow_loopback else "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip in _CGNAT:
        return "a shared (CGNAT) address (100.64.0.0/10)"
    if ip.is_multicast:
        return "a multicast address"
    if ip == ipaddress.IPv4Address("255.255.255.255"):
        return "the broadcast address"
    if ip.is_private:
        return "a private address"
    if ip.is_reserved or not ip.is_global:
        return "a reserved, non-public address"
    return None


# --- the guard ----------------------------------------------------------------------------------


async def system_resolver(host: str, port: int) -> list[str]:
    """The addresses the system resolver gives for `host` (raises socket.gaierror)."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return [str(info[4][0]) for info in infos]


def parse_domains(value: str | Iterable[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else list(value)
    return tuple(d.strip().lower().strip(".") for d in items if d.strip().strip("."))


# Longer URLs are refused when a config is set (and at every send): HTTP clients and servers
# have limits of their own (httpx refuses a component over 64 KiB), and 2 KiB is what every
# browser and CDN supports.
MAX_URL_CHARS = 2048


class UrlGuard:
    def __init__(
        self,
        *,
        dev_mode: bool = False,
        allowed_domains: str | Iterable[str] | None = None,
        resolver: Resolver | None = None,
        resolve_timeout_s: float = 5.0,
    ) -> None:
        self.dev_mode = dev_mode
        self.allowed_domains = parse_domains(allowed_domains)
        self.resolver: Resolver = resolver or system_resolver
        self.resolve_timeout_s = resolve_timeout_s

    def parse(self, url: str) -> ParsedUrl:
        """Check what can be checked without DNS; UrlRefused if the URL is refused."""
        if not isinstance(url, str) or not url:
            raise UrlRefused(str(url), "the URL is empty")
        if len(url) > MAX_URL_CHARS:
            raise UrlRefused(url[:64] + "...", f"the URL is longer than {MAX_URL_CHARS} characters")
        if _UNSAFE_CHARS.search(url):
            raise UrlRefused(url, "the URL contains whitespace, control characters or '\\'")
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as exc:
            raise UrlRefused(url, f"the URL is malformed ({exc})") from None
        scheme = parts.scheme.lower()
        if scheme not in DEFAULT_PORTS:
            raise UrlRefused(url, "the URL must be an https URL")
        if scheme == "http" and not self.dev_mode:
            raise UrlRefused(url, "the URL must use https (http is allowed in dev mode only)")
        if "@" in parts.netloc:
            raise UrlRefused(url, "the URL may not contain credentials (user@host)")
        raw_host = parts.hostname
        if not raw_host:
            raise UrlRefused(url, "the URL has no host")
        if port == 0:
            raise UrlRefused(url, "the URL's port must be between 1 and 65535")
        port = port or DEFAULT_PORTS[scheme]
        literal, host = self._host(url, raw_host, bracketed=parts.netloc.startswith("["))
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        parsed = ParsedUrl(url, scheme, host, port, target, literal)
        self._check_allowlist(parsed)
        if literal is not None:
            self._check_address(url, literal, str(literal))
        elif host in METADATA_HOSTNAMES:
            raise UrlRefused(url, f"host {host} is a cloud metadata endpoint")
        elif not self.dev_mode and (host == "localhost" or host.endswith(".localhost")):
            raise UrlRefused(url, f"host {host} is a loopback name")
        return parsed

    async def check_at_set_time(self, url: str) -> ParsedUrl:
        """Refuse a URL that can never be called; a host that does not resolve yet passes."""
        parsed = self.parse(url)
        if parsed.literal is None:
            # A host that does not resolve yet is checked again at every send.
            with contextlib.suppress(HostUnresolvable):
                await self._resolve(parsed)
        return parsed

    async def resolve_for_send(self, url: str) -> PinnedTarget:
        """The checked address to deliver to. UrlRefused (permanent) or HostUnresolvable."""
        parsed = self.parse(url)
        ip = parsed.literal if parsed.literal is not None else (await self._resolve(parsed))[0]
        return PinnedTarget(
            parsed.url, parsed.scheme, parsed.host, parsed.port, parsed.target, str(ip)
        )

    async def _resolve(self, parsed: ParsedUrl) -> list[IPAddress]:
        """Every address the host resolves to, all allowed (UrlRefused if any is not)."""
        try:
            async with asyncio.timeout(self.resolve_timeout_s):
                answers = await self.resolver(parsed.host, parsed.port)
        except TimeoutError:
            raise HostUnresolvable(parsed.host, "DNS lookup timed out") from None
        except (OSError, UnicodeError) as exc:
            raise HostUnresolvable(parsed.host, str(exc) or type(exc).__name__) from None
        addresses: list[IPAddress] = []
        for answer in answers:
            ip = _as_address(answer)
            if ip is None:
                raise UrlRefused(parsed.url, f"host {parsed.host} resolved to {answer!r}")
            self._check_address(parsed.url, ip, parsed.host)
            addresses.append(ip)
        if not addresses:
            raise HostUnresolvable(parsed.host, "no addresses")
        return addresses

    def _check_address(self, url: str, ip: IPAddress, host: str) -> None:
        reason = forbidden_reason(ip, allow_loopback=self.dev_mode)
        if reason is None:
            return
        if host == str(ip):
            raise UrlRefused(url, f"address {ip} is {reason}")
        raise UrlRefused(url, f"host {host} resolves to {ip}, which is {reason}")

    def _check_allowlist(self, parsed: ParsedUrl) -> None:
        if not self.allowed_domains:
            return
        host = parsed.host
        for domain in self.allowed_domains:
            if host == domain or (parsed.literal is None and host.endswith("." + domain)):
                return
        allowed = ", ".join(self.allowed_domains)
        raise UrlRefused(
            parsed.url, f"host {host} is not in the allowed webhook domains ({allowed})"
        )

    def _host(self, url: str, raw_host: str, *, bracketed: bool) -> tuple[IPAddress | None, str]:
        """(address literal or None, normalised host) for the URL's host."""
        if bracketed:
            if "%" in raw_host:
                raise UrlRefused(url, "the URL's IPv6 address has a zone index")
            try:
                ip6 = ipaddress.IPv6Address(raw_host)
            except ValueError:
                raise UrlRefused(url, f"{raw_host!r} is not a valid IPv6 address") from None
            return ip6, str(ip6)
        host = raw_host.lower()
        if not host.isascii():
            try:
                host = host.encode("idna").decode("ascii")
            except UnicodeError:
                raise UrlRefused(url, f"{raw_host!r} is not a valid hostname") from None
        try:
            ip4 = parse_ipv4_literal(host)
        except ValueError as exc:
            raise UrlRefused(url, str(exc)) from None
        if ip4 is not None:
            return ip4, str(ip4)
        host = host[:-1] if host.endswith(".") else host
        labels = host.split(".")
        if len(host) > 253 or not all(_LABEL.match(label) for label in labels):
            raise UrlRefused(url, f"{raw_host!r} is not a valid hostname")
        return None, host
