"""Small pieces of the delivery policy: back-off, Retry-After, status classes, headers, ids."""

from __future__ import annotations

import email.utils
import time

import pytest

from a2a_serverless.models import AuthenticationInfo, TaskPushNotificationConfig
from a2a_serverless.push import notification_id
from a2a_serverless.push.delivery import classify_status, parse_retry_after
from a2a_serverless.push.payload import notification_headers

from .conftest import HarnessFactory


def test_retry_after_seconds_and_http_dates() -> None:
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = time.time()
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert 28 <= (parse_retry_after(date, now=now) or 0) <= 31
    past = email.utils.formatdate(now - 30, usegmt=True)
    assert parse_retry_after(past, now=now) == 0.0


@pytest.mark.parametrize(
    ("status", "outcome"),
    [
        (200, "delivered"),
        (202, "delivered"),
        (204, "delivered"),
        (301, "permanent"),
        (307, "permanent"),
        (400, "permanent"),
        (404, "permanent"),
        (408, "retry"),
        (429, "retry"),
        (500, "retry"),
        (503, "retry"),
        (599, "retry"),
    ],
)
def test_status_classes(status: int, outcome: str) -> None:
    assert classify_status(status, None)[0] == outcome


def test_retry_after_only_counts_on_retryable_answers() -> None:
    assert classify_status(503, "7") == ("retry", 7.0)
    assert classify_status(429, "3") == ("retry", 3.0)
    assert classify_status(400, "7") == ("permanent", None)


async def test_backoff_is_exponential_capped_with_full_jitter(harness: HarnessFactory) -> None:
    h = await harness(push_backoff_base_s=1.0, push_backoff_max_s=10.0)
    for attempt, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 10.0), (40, 10.0)]:
        delays = [h.notifier.backoff(attempt) for _ in range(200)]
        assert all(0 <= d <= ceiling for d in delays)
        assert max(delays) > ceiling * 0.7  # spread over the whole range: full jitter
        assert min(delays) < ceiling * 0.3


def test_notification_ids_are_stable_and_distinct() -> None:
    assert notification_id("t", "c", 3) == notification_id("t", "c", 3)
    assert (
        len(
            {
                notification_id("t", "c", 3),
                notification_id("t", "c", 4),
                notification_id("t", "d", 3),
                notification_id("u", "c", 3),
            }
        )
        == 4
    )


def test_headers_carry_id_seq_token_and_our_jwt() -> None:
    config = TaskPushNotificationConfig(url="https://r.example/", token="tok")
    headers = notification_headers(config, "nid", 7, "a.b.c")
    assert headers == {
        "Content-Type": "application/json",
        "X-A2A-Notification-Id": "nid",
        "X-A2A-Notification-Seq": "7",
        "X-A2A-Notification-Token": "tok",
        "Authorization": "Bearer a.b.c",
    }


def test_unknown_schemes_with_credentials_keep_our_jwt_in_authorization() -> None:
    auth = AuthenticationInfo(scheme="HMAC", credentials="k")
    config = TaskPushNotificationConfig(url="https://r.example/", authentication=auth)
    assert notification_headers(config, "n", 1, "a.b.c")["Authorization"] == "Bearer a.b.c"


def test_header_injection_through_config_values_is_refused() -> None:
    auth = AuthenticationInfo(scheme="Bearer", credentials="x\r\nEvil: 1")
    with pytest.raises(ValueError, match="control characters"):
        notification_headers(
            TaskPushNotificationConfig(url="https://r.example/", authentication=auth), "n", 1, "j"
        )
    with pytest.raises(ValueError, match="control characters"):
        notification_headers(
            TaskPushNotificationConfig(url="https://r.example/", token="a\nb"), "n", 1, "j"
        )


async def test_unknown_notify_on_is_refused(harness: HarnessFactory) -> None:
    with pytest.raises(ValueError, match="final"):
        await harness(push_notify_on="sometimes")
    with pytest.raises(ValueError, match="at least 1"):
        await harness(push_max_attempts=0)
