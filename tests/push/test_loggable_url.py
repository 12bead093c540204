"""Webhook URLs in log records: what a receiver puts in the query string stays out of logs."""

from __future__ import annotations

import pytest

from a2a_serverless.push.delivery import loggable_url


@pytest.mark.parametrize(
    ("url", "logged"),
    [
        ("https://hooks.example.com/a2a", "https://hooks.example.com/a2a"),
        ("https://hooks.example.com/a2a?token=s3cret", "https://hooks.example.com/a2a?..."),
        ("https://hooks.example.com:8443/x#frag", "https://hooks.example.com:8443/x?..."),
        ("https://user:pw@hooks.example.com/x", "https://hooks.example.com/x"),
        ("http://[::1]:9000/hook?k=v", "http://[::1]:9000/hook?..."),
        ("http://[::1", "<unparseable URL>"),
    ],
)
def test_loggable_url(url: str, logged: str) -> None:
    assert loggable_url(url) == logged
    assert "s3cret" not in loggable_url(url) and "pw" not in loggable_url(url)
