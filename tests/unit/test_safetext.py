"""Client text on a terminal and in text logs (issue 31, items 3 and 7): control characters are
written as visible escapes, so an id or a name cannot drive the terminal or forge a log line."""

from __future__ import annotations

import io
import json
import logging

import pytest

from a2a_serverless.devserver import DevTarget
from a2a_serverless.safetext import EscapingFormatter, escape_controls, escape_json_text

HOSTILE = "ok\x1b]0;pwned\x07\x1b[2K\rfake row\n\x9b31m\u202eevil\u2028x\tz"


def test_controls_become_visible_escapes() -> None:
    assert escape_controls(HOSTILE) == (
        "ok\\x1b]0;pwned\\x07\\x1b[2K\\rfake row\\n\\x9b31m\\u202eevil\\u2028x\\tz"
    )


def test_other_text_is_left_as_it_is() -> None:
    text = 'Café 東京 👩‍👩‍👧 back\\slash "quotes" ~'
    assert escape_controls(text) == text
    assert escape_controls(escape_controls(HOSTILE)) == escape_controls(HOSTILE)


def test_json_stays_json_and_the_same_value() -> None:
    value = {"name": HOSTILE, "ünï": "cödé"}
    safe = escape_json_text(json.dumps(value, ensure_ascii=False))
    assert json.loads(safe) == value
    assert not any(ch in safe for ch in "\x1b\x07\x9b\u202e\u2028")
    assert "ünï" in safe


def test_a_log_message_cannot_forge_a_line() -> None:
    formatter = EscapingFormatter("%(levelname)s %(name)s: %(message)s")
    record = logging.LogRecord(
        "a2a_serverless.push.notifier",
        logging.INFO,
        __file__,
        1,
        "notification %s dropped: config %s was deleted",
        ("n-1", "c1\nWARNING a2a_serverless.auth: admin logged in"),
        None,
    )
    line = formatter.format(record)
    assert "\n" not in line
    assert line.endswith("config c1\\nWARNING a2a_serverless.auth: admin logged in was deleted")


def test_a_traceback_still_follows_on_its_own_lines() -> None:
    formatter = EscapingFormatter("%(levelname)s %(message)s")
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logger = logging.getLogger("t")
        record = logger.makeRecord("t", logging.ERROR, __file__, 1, "failed", (), _exc_info())
    text = formatter.format(record)
    assert text.startswith("ERROR failed\nTraceback (most recent call last):")


def _exc_info() -> tuple[type[BaseException], BaseException, object]:
    import sys

    info = sys.exc_info()
    assert info[0] is not None and info[1] is not None
    return info[0], info[1], info[2]


def test_the_dev_servers_text_log_escapes_what_it_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(root, "level", root.level)
    DevTarget(None).configure_logging()
    [handler] = root.handlers
    assert isinstance(handler, logging.StreamHandler)
    stream = io.StringIO()
    monkeypatch.setattr(handler, "stream", stream)
    # The record goes straight to the handler the dev server installed: what is tested is its
    # formatting, and the logger's own state (its level, its cached levels, a parent that an
    # earlier test in the same process configured) must not decide whether it is written.
    record = logging.getLogger("a2a_serverless.push.notifier").makeRecord(
        "a2a_serverless.push.notifier",
        logging.INFO,
        __file__,
        0,
        "notification %s dropped: config %s was deleted",
        ("n-1", "c1\nWARNING a2a_serverless.auth: forged"),
        None,
    )
    handler.handle(record)
    lines = stream.getvalue().splitlines()
    assert lines == [
        "INFO a2a_serverless.push.notifier: notification n-1 dropped: config "
        "c1\\nWARNING a2a_serverless.auth: forged was deleted"
    ]
