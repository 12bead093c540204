"""The SSRF guard: every forbidden form refused in production, pinned connections, dev mode."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping, Sequence

import pytest

from a2a_serverless.errors import InvalidParamsError
from a2a_serverless.models import TaskPushNotificationConfig
from a2a_serverless.push.ssrf import (
    HostUnresolvable,
    UrlGuard,
    UrlRefused,
    forbidden_reason,
    parse_ipv4_literal,
)
from a2a_serverless.store.base import StoredPushConfig

from .conftest import HarnessFactory
from .webhook_server import Received, Reply, WebhookServer, self_signed

PUBLIC_IP = "93.184.216.34"  # never contacted: only the guard's decision is tested


Answer = Sequence[str] | Callable[[], Sequence[str]]


class FakeResolver:
    """A resolver answering from a table (an answer may be a function: a new answer each time)."""

    def __init__(self, table: Mapping[str, Answer]) -> None:
        self.table = table
        self.calls: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append(host)
        if host not in self.table:
            raise OSError(f"[Errno -2] Name or service not known: {host}")
        answer = self.table[host]
        return list(answer() if callable(answer) else answer)


def resolver_of(table: Mapping[str, Answer]) -> FakeResolver:
    return FakeResolver(table)


FORBIDDEN_URLS = [
    "https://127.0.0.1/hook",
    "https://127.1/hook",
    "https://2130706433/hook",
    "https://0x7f000001/hook",
    "https://0177.0.0.1/hook",
    "https://0x7f.1/hook",
    "https://127.0.0.1./hook",
    "https://[::1]/hook",
    "https://[::ffff:127.0.0.1]/hook",
    "https://[::ffff:7f00:1]/hook",
    "https://[::127.0.0.1]/hook",
    "https://[64:ff9b::7f00:1]/hook",
    "https://[2002:7f00:1::]/hook",
    "https://10.0.0.1/hook",
    "https://10.255.255.255/hook",
    "https://172.16.0.1/hook",
    "https://172.31.255.254/hook",
    "https://192.168.0.1/hook",
    "https://100.64.0.1/hook",
    "https://100.127.255.254/hook",
    "https://169.254.169.254/latest/meta-data/",
    "https://169.254.0.1/hook",
    "https://0xa9fea9fe/hook",  # 169.254.169.254 in hex
    "https://2852039166/hook",  # 169.254.169.254 in decimal
    "https://[::ffff:169.254.169.254]/hook",
    "https://[fd00:ec2::254]/latest/meta-data/",
    "https://[fc00::1]/hook",
    "https://[fdff:ffff::1]/hook",
    "https://[fe80::1]/hook",
    "https://0.0.0.0/hook",
    "https://0/hook",
    "https://[::]/hook",
    "https://224.0.0.1/hook",
    "https://239.255.255.250/hook",
    "https://[ff02::1]/hook",
    "https://255.255.255.255/hook",
    "https://240.0.0.1/hook",
    "https://localhost/hook",
    "https://api.localhost/hook",
    "https://metadata.google.internal/computeMetadata/v1/",
]


@pytest.mark.parametrize("url", FORBIDDEN_URLS)
async def test_forbidden_addresses_are_refused_in_production(url: str) -> None:
    guard = UrlGuard(resolver=resolver_of({}))
    with pytest.raises(UrlRefused):
        await guard.check_at_set_time(url)
    with pytest.raises(UrlRefused):
        await guard.resolve_for_send(url)


@pytest.mark.parametrize(
    "answer",
    [
        "127.0.0.1",
        "::1",
        "10.1.2.3",
        "172.20.0.5",
        "192.168.1.10",
        "100.64.1.1",
        "169.254.169.254",
        "fd00:ec2::254",
        "fc00::5",
        "0.0.0.0",
        "224.0.0.1",
        "::ffff:127.0.0.1",
    ],
)
async def test_hostnames_resolving_to_forbidden_addresses_are_refused(answer: str) -> None:
    guard = UrlGuard(resolver=resolver_of({"hooks.example.com": [answer]}))
    with pytest.raises(UrlRefused, match="resolves to"):
        await guard.check_at_set_time("https://hooks.example.com/a2a")
    with pytest.raises(UrlRefused, match="resolves to"):
        await guard.resolve_for_send("https://hooks.example.com/a2a")


async def test_one_forbidden_address_among_public_ones_is_enough_to_refuse() -> None:
    guard = UrlGuard(resolver=resolver_of({"mixed.example.com": [PUBLIC_IP, "10.0.0.7"]}))
    with pytest.raises(UrlRefused, match=r"10\.0\.0\.7"):
        await guard.resolve_for_send("https://mixed.example.com/")


async def test_localhost_by_the_system_resolver_is_refused() -> None:
    with pytest.raises(UrlRefused):
        await UrlGuard().check_at_set_time("https://localhost/")
    with pytest.raises(UrlRefused, match="loopback"):
        await UrlGuard(dev_mode=False).resolve_for_send("https://LOCALHOST.:8443/x")


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://hooks.example.com/a2a", "https"),
        ("ftp://hooks.example.com/", "https"),
        ("hooks.example.com/a2a", "https"),
        ("", "empty"),
        ("https:///a2a", "no host"),
        ("https://user:pw@hooks.example.com/", "credentials"),
        ("https://hooks.example.com\\@127.0.0.1/", "control characters"),
        ("https://hooks.example.com /", "whitespace"),
        ("https://hooks.example.com:99999/", "malformed"),
        ("https://hooks.example.com:0/", "port"),
        ("https://1.2.3.4.5/", "not a valid IPv4"),
        ("https://256.0.0.1/", "not a valid IPv4"),
        ("https://[fe80::1%25eth0]/", "zone"),
        ("https://exa$mple.com/", "not a valid hostname"),
    ],
)
async def test_malformed_and_non_https_urls_are_refused(url: str, why: str) -> None:
    with pytest.raises(UrlRefused, match=why):
        await UrlGuard(resolver=resolver_of({})).check_at_set_time(url)


async def test_a_public_address_is_allowed_and_pinned() -> None:
    resolve = resolver_of({"hooks.example.com": [PUBLIC_IP, "2606:2800:220:1::1"]})
    guard = UrlGuard(resolver=resolve)
    await guard.check_at_set_time("https://hooks.example.com/a2a?x=1")
    target = await guard.resolve_for_send("https://Hooks.Example.COM:8443/a2a?x=1#frag")
    assert target.ip == PUBLIC_IP
    assert target.connect_url == f"https://{PUBLIC_IP}:8443/a2a?x=1"
    assert target.host_header == "hooks.example.com:8443"
    assert target.sni == "hooks.example.com"
    literal = await guard.resolve_for_send("https://[2606:2800:220:1::1]/a2a")
    assert literal.connect_url == "https://[2606:2800:220:1::1]:443/a2a"
    assert literal.host_header == "[2606:2800:220:1::1]"
    assert literal.sni is None  # a certificate for an address, not a name
    assert (await guard.resolve_for_send(f"https://{PUBLIC_IP}/")).ip == PUBLIC_IP


async def test_a_host_that_does_not_resolve_yet_is_accepted_then_checked_at_send() -> None:
    answers: dict[str, Answer] = {}
    guard = UrlGuard(resolver=resolver_of(answers))
    await guard.check_at_set_time("https://later.example.com/a2a")
    with pytest.raises(HostUnresolvable):
        await guard.resolve_for_send("https://later.example.com/a2a")
    answers["later.example.com"] = ["127.0.0.1"]
    with pytest.raises(UrlRefused, match="loopback"):
        await guard.resolve_for_send("https://later.example.com/a2a")


async def test_dns_rebinding_cannot_move_a_pinned_target() -> None:
    answers = iter([[PUBLIC_IP], ["127.0.0.1"]])
    guard = UrlGuard(resolver=resolver_of({"rebind.example.com": lambda: next(answers)}))
    target = await guard.resolve_for_send("https://rebind.example.com/a2a")
    # Whatever DNS says now, the delivery connects to the address that was checked.
    assert target.ip == PUBLIC_IP and PUBLIC_IP in target.connect_url
    with pytest.raises(UrlRefused):  # and the next send checks again
        await guard.resolve_for_send("https://rebind.example.com/a2a")


def test_ipv4_literal_forms() -> None:
    for text in (
        "127.0.0.1",
        "127.1",
        "127.0.1",
        "2130706433",
        "0x7f000001",
        "0177.0.0.1",
        "0x7f.1",
        "0x7F.0.0.0x1",
        "017700000001",
    ):
        assert parse_ipv4_literal(text) == ipaddress.IPv4Address("127.0.0.1"), text
    assert parse_ipv4_literal("example.com") is None
    assert parse_ipv4_literal("1.2.3.com") is None
    for bad in ("1.2.3.4.5", "256.1.1.1", "1.2.3.0x100", "4294967296", "0x1g"):
        if bad == "0x1g":
            assert parse_ipv4_literal(bad) is None
            continue
        with pytest.raises(ValueError):
            parse_ipv4_literal(bad)


def test_dev_mode_allows_loopback_but_nothing_else() -> None:
    loopback = [
        ipaddress.ip_address(a) for a in ("127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.1")
    ]
    for ip in loopback:
        assert forbidden_reason(ip, allow_loopback=True) is None
        assert forbidden_reason(ip) is not None
    for text in ("10.0.0.1", "169.254.169.254", "fd00:ec2::254", "0.0.0.0", "192.168.1.1"):
        assert forbidden_reason(ipaddress.ip_address(text), allow_loopback=True) is not None


async def test_dev_mode_allows_http_to_loopback_only() -> None:
    guard = UrlGuard(dev_mode=True, resolver=resolver_of({"localhost": ["127.0.0.1"]}))
    await guard.check_at_set_time("http://127.0.0.1:9000/webhook")
    await guard.check_at_set_time("http://localhost:9000/webhook")
    for url in ("http://10.0.0.1/", "http://169.254.169.254/", "https://[fd00:ec2::254]/"):
        with pytest.raises(UrlRefused):
            await guard.check_at_set_time(url)


async def test_allowlist_of_domains() -> None:
    resolve = resolver_of(
        {
            "hooks.example.com": [PUBLIC_IP],
            "a.hooks.example.com": [PUBLIC_IP],
            "evil.com": [PUBLIC_IP],
            "hooks.example.com.evil.com": [PUBLIC_IP],
        }
    )
    guard = UrlGuard(allowed_domains="hooks.example.com, other.org", resolver=resolve)
    await guard.check_at_set_time("https://hooks.example.com/a2a")
    await guard.check_at_set_time("https://a.hooks.example.com/a2a")
    for url in (
        "https://evil.com/",
        "https://hooks.example.com.evil.com/",
        "https://xhooks.example.com/",
        f"https://{PUBLIC_IP}/",
    ):
        with pytest.raises(UrlRefused, match="allowed webhook domains"):
            await guard.check_at_set_time(url)


# --- with the notifier and a real receiver -------------------------------------------------


async def test_dev_mode_delivers_to_http_loopback(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    h = await harness(dev_mode=True)
    await h.send("hello", webhook.url())
    await h.drain()
    assert len(webhook.notifications()) == 1


async def test_production_refuses_a_loopback_receiver_at_set_time(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    h = await harness(dev_mode=False)
    for url in (
        webhook.url(),
        webhook.url().replace("http:", "https:"),
        webhook.url(host="localhost").replace("http:", "https:"),
    ):
        with pytest.raises(InvalidParamsError) as refused:
            await h.notifier.check_config_url(url)
        assert refused.value.data["url"] == url
        assert "not allowed" in refused.value.message


async def test_production_refuses_a_loopback_receiver_at_send_time(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    # Configs that got past the set-time check (an older deployment, a dev-mode store) are
    # refused again at every send, and nothing reaches the receiver.
    h = await harness(dev_mode=False, push_max_configs_per_task=10)
    port = webhook.port
    first = f"https://127.0.0.1:{port}/webhook"
    task_id = await h.send("ask", first, check=False)
    await h.drain()
    others = [
        f"https://127.1:{port}/webhook",
        f"https://2130706433:{port}/webhook",
        f"https://[::ffff:127.0.0.1]:{port}/webhook",
        f"https://localhost:{port}/webhook",
        webhook.url(),  # http
    ]
    record = await h.store.get_task(task_id)
    assert record is not None
    for url in others:
        config = TaskPushNotificationConfig(url=url, id=url)
        await h.store.put_push_config(StoredPushConfig(task_id, "anonymous", config))
        await h.notifier.on_config_set(task_id, url, seen_seq=record.last_seq)
    await h.send("blue", first, task_id=task_id, check=False)
    await h.drain()
    assert webhook.requests == []
    letters = await h.notifier.dead_letters(task_id)
    assert sorted({letter.url for letter in letters}) == sorted([first, *others])
    assert len(letters) == 1 + 1 + len(others)  # input-required to one, completed to all
    assert all(letter.reason.startswith("refused by the SSRF guard") for letter in letters)
    assert all(letter.attempts == 1 for letter in letters)
    reasons = {letter.url: letter.reason for letter in letters}
    assert "loopback" in reasons[others[0]] and "https" in reasons[webhook.url()]


async def test_production_refuses_a_host_rebound_to_loopback_after_set_time(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    answers = iter([[PUBLIC_IP]])
    resolve = resolver_of({"rebind.example.com": lambda: next(answers, ["127.0.0.1"])})
    h = await harness(dev_mode=False, resolver=resolve)
    url = f"https://rebind.example.com:{webhook.port}/webhook"
    task_id = await h.send("hello", url)  # public at set time: accepted
    await h.drain()
    assert webhook.requests == []
    [letter] = await h.notifier.dead_letters(task_id)
    assert "resolves to 127.0.0.1" in letter.reason


async def test_delivery_connects_to_the_checked_address_not_a_new_lookup(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    # rebind.test exists only in this resolver: a connection that looked the name up again
    # would fail. Set time and the send-time check say 127.0.0.1 (allowed in dev mode), every
    # later answer is the metadata endpoint.
    answers = iter([["127.0.0.1"], ["127.0.0.1"]])
    resolve = resolver_of({"rebind.test": lambda: next(answers, ["169.254.169.254"])})
    h = await harness(dev_mode=True, resolver=resolve)
    url = f"http://rebind.test:{webhook.port}/webhook"
    task_id = await h.send("ask", url)
    await h.drain()
    [request] = webhook.notifications()
    assert request.headers["host"] == f"rebind.test:{webhook.port}"
    assert resolve.calls == ["rebind.test", "rebind.test"]
    # The next notification is checked again: now refused, and nothing is sent.
    await h.send("blue", None, task_id=task_id)
    await h.drain()
    assert len(webhook.notifications()) == 1
    [letter] = await h.notifier.dead_letters(task_id)
    assert "cloud metadata endpoint" in letter.reason


async def test_allowlist_with_the_notifier(harness: HarnessFactory, webhook: WebhookServer) -> None:
    resolve = resolver_of({"hooks.test": ["127.0.0.1"]})
    h = await harness(push_allowed_domains="hooks.test", resolver=resolve)
    with pytest.raises(InvalidParamsError, match="allowed webhook domains"):
        await h.notifier.check_config_url(webhook.url())
    await h.send("hello", f"http://hooks.test:{webhook.port}/webhook")
    await h.drain()
    [request] = webhook.notifications()
    assert request.headers["host"] == f"hooks.test:{webhook.port}"


async def test_https_to_a_pinned_address_uses_sni_and_checks_the_certificate(
    harness: HarnessFactory,
) -> None:
    server_ctx, client_ctx = self_signed("webhook.test")
    server = await WebhookServer().start(ssl_context=server_ctx)
    try:
        resolve = resolver_of({"webhook.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
        h = await harness(resolver=resolve, ssl_context=client_ctx, push_max_attempts=2)
        ok = await h.send("hello", f"https://webhook.test:{server.port}/webhook")
        await h.drain()
        [request] = server.notifications()
        assert request.headers["host"] == f"webhook.test:{server.port}"
        assert server.sni_names[0] == "webhook.test"
        assert await h.notifier.dead_letters(ok) == []
        # A name the certificate does not cover fails the TLS check (and is retried).
        wrong = await h.send("hello", f"https://other.test:{server.port}/webhook")
        await h.drain()
        assert len(server.notifications()) == 1
        [letter] = await h.notifier.dead_letters(wrong)
        assert "certificate" in letter.reason.lower() and letter.attempts == 2
    finally:
        await server.stop()


# --- ownership challenge ---------------------------------------------------------------------


async def test_ownership_challenge_echoed_is_accepted(harness: HarnessFactory) -> None:
    def reply(request: Received) -> Reply:
        if request.method == "GET":
            token = request.target.split("validationToken=", 1)[1]
            assert request.headers["x-a2a-validation-token"] == token
            return Reply(200, {"Content-Type": "text/plain"}, token.encode())
        return Reply(200)

    server = await WebhookServer(reply).start()
    try:
        h = await harness(push_verify_ownership=True)
        await h.send("hello", server.url("/webhook?tenant=7"))
        await h.drain()
        [challenge] = [r for r in server.requests if r.method == "GET"]
        assert challenge.target.startswith("/webhook?tenant=7&validationToken=")
        assert len(server.notifications()) == 1
    finally:
        await server.stop()


@pytest.mark.parametrize("reply", [Reply(200, body=b"something else"), Reply(404), Reply(302)])
async def test_ownership_challenge_not_echoed_is_refused(
    harness: HarnessFactory, reply: Reply
) -> None:
    server = await WebhookServer(lambda r: reply).start()
    try:
        h = await harness(push_verify_ownership=True)
        with pytest.raises(InvalidParamsError, match="ownership check"):
            await h.notifier.check_config_url(server.url())
    finally:
        await server.stop()


async def test_ownership_challenge_is_off_by_default(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    h = await harness()
    await h.notifier.check_config_url(webhook.url())
    assert webhook.requests == []
