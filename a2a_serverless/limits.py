"""What one request may carry: strict JSON parsing and the configurable size limits.

Every transport parses request bodies with `parse_json` (and counts a message's raw parts with
`check_parts_count` before validating them); the service checks the validated params of each
method that takes a message, a push config or a time filter (`check_send`, `check_push_config`,
`check_list`) as it is called, whatever the version or binding, before anything is stored. A
hostile or broken client gets a clear error naming the limit (its `data` says which setting,
the maximum and what was sent) instead of a crash, a corrupted task or a stored value no client
can read back.

`parse_json` is `json.loads` made strict, at almost no cost on ordinary requests:

- the body must be UTF-8 (RFC 8259 §8.1), not whatever encoding `json.loads(bytes)` detects;
- `NaN`, `Infinity` and numbers that overflow a double are refused: they are not JSON, and once
  stored they would be written back as invalid JSON; so are integers of more than 4300 digits
  (Python's limit on converting them);
- strings may not hold lone surrogates (`"\\ud800"`): they cannot be encoded as UTF-8, so
  storing or answering with them fails (I-JSON, RFC 7493 §2.1, forbids them too);
- values nested deeper than `max_json_depth` are refused (deep values break validation and
  serialisation later); `json.loads` itself stops at Python's recursion limit (RecursionError,
  also refused).

The depth and surrogate checks run only when a cheap scan of the raw text says they could
fail: no body with fewer brackets than the depth limit can be too deep, and a lone surrogate
can only come from a `\\u` escape once the bytes are known to be valid UTF-8.

Duplicate object keys are allowed and the last one wins (as in `json.loads`, JavaScript's
`JSON.parse` and most parsers); the body is read once, so no two parts of this server can
disagree about which value was meant.
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from .config import Settings
from .errors import InvalidParamsError, InvalidRequestError, JSONParseError, ServiceUnavailableError
from .models import (
    ListTasksRequest,
    Message,
    SendMessageRequest,
    TaskPushNotificationConfig,
)

# Integers a Store can hold (SQLite INTEGER, DynamoDB and Firestore numbers): signed 64 bits.
MAX_INT64 = 2**63 - 1


class NestingTooDeepError(InvalidRequestError):
    """The request's JSON is nested deeper than `max_json_depth` (-32600, HTTP 400)."""

    def __init__(self, max_depth: int) -> None:
        super().__init__(
            f"The request's JSON is nested more than {max_depth} levels deep",
            data=limit_data("max_json_depth", max_depth),
        )


class LimitExceededError(InvalidParamsError):
    """A request parameter is over one of the configured limits (-32602; HTTP 400 or 413)."""

    def __init__(
        self, message: str, *, limit: str, maximum: int, actual: int, status: int = 400
    ) -> None:
        super().__init__(message, data=limit_data(limit, maximum, actual))
        self.status = status

    @property
    def rest_status(self) -> int:
        return self.status


def limit_data(limit: str, maximum: int, actual: int | None = None) -> dict[str, Any]:
    """The `data` of an error refusing a request over a limit: which setting, and the numbers."""
    data: dict[str, Any] = {"limit": limit, "setting": f"A2A_{limit.upper()}", "max": maximum}
    if actual is not None:
        data["actual"] = actual
    return data


class RequestTooLargeError(InvalidRequestError):
    """A request body over `max_body_bytes` (413; -32600 over JSON-RPC)."""

    http_status = 413
    default_message = "Request body is too large"

    def __init__(self, max_body_bytes: int | None = None) -> None:
        data = None if max_body_bytes is None else limit_data("max_body_bytes", max_body_bytes)
        super().__init__(data=data)


# --- parsing ------------------------------------------------------------------------------------


class _NotJSON(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _NotJSON(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotJSON(f"the number {text[:40]} is too large")
    return value


# Made once: json.loads(text, **options) would build a decoder on every call.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)
_FAST = msgspec.json.Decoder()


def parse_json(raw: bytes, max_depth: int) -> Any:
    """The JSON value of a request body (see the module docstring for what is refused).

    Raises JSONParseError (-32700) or NestingTooDeepError (-32600).
    """
    if raw.count(b"{") + raw.count(b"[") <= max_depth:
        # msgspec refuses everything below (not UTF-8, NaN, overflowing numbers, lone
        # surrogates) and parses about 3x faster than json.loads, but words its errors for
        # programmers: anything it refuses goes through the checks below, which say why.
        # Not a typed decode: msgspec would skip unknown members unchecked, and a body that is
        # not strict JSON anywhere is refused (measured: +0.7 us per message/send).
        try:
            return _FAST.decode(raw)
        except (ValueError, RecursionError):
            pass
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise JSONParseError(data={"reason": "the body is not UTF-8"}) from None
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise NestingTooDeepError(max_depth) from None
    except _NotJSON as exc:
        raise JSONParseError(data={"reason": str(exc)}) from None
    except json.JSONDecodeError:
        raise JSONParseError() from None
    except ValueError:
        # Python refuses to convert integers of more than 4300 digits.
        raise JSONParseError(data={"reason": "a number has too many digits"}) from None
    # Fewer brackets than the limit (counted in strings too) cannot nest deeper than it.
    if _more_brackets_than(text, max_depth) and _deeper_than(value, max_depth):
        raise NestingTooDeepError(max_depth)
    # Only a \\u escape makes a lone surrogate (the bytes were valid UTF-8). Looking for a
    # backslash first is a memchr, the cheapest look at a large body. (Pairs escaped by an
    # ensure_ascii encoder, e.g. emoji, pay for the full check: about as much as json.loads.)
    bs = "\\"
    if bs in text and (bs + "ud" in text or bs + "uD" in text) and _has_lone_surrogate(value):
        raise JSONParseError(
            data={"reason": "a string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff)"}
        )
    return value


def _more_brackets_than(text: str, limit: int) -> bool:
    """Whether `text` holds more than `limit` opening brackets (found by str.find, a memchr:
    str.count walks a large body character by character)."""
    found = 0
    for bracket in "[{":
        at = text.find(bracket)
        while at != -1:
            found += 1
            if found > limit:
                return True
            at = text.find(bracket, at + 1)
    return False


def _deeper_than(value: Any, max_depth: int) -> bool:
    # Level by level, iteratively: checking a deep value cannot hit the recursion limit itself.
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            return True
        below: list[Any] = []
        for node in level:
            children = node.values() if isinstance(node, dict) else node
            below += [child for child in children if isinstance(child, dict | list)]
        level = below
    return False


def _has_lone_surrogate(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# --- parameters -----------------------------------------------------------------------------------


def check_parts_count(count: int, settings: Settings) -> None:
    """Refuse a message with more parts than `max_message_parts` (before they are validated)."""
    if count > settings.max_message_parts:
        raise LimitExceededError(
            f"A message may have at most {settings.max_message_parts} parts",
            limit="max_message_parts",
            maximum=settings.max_message_parts,
            actual=count,
        )


def raw_parts_count(message: Any, *names: str) -> int:
    """How many parts an unvalidated message object lists under the first of `names` it has."""
    if isinstance(message, dict):
        for name in names:
            parts = message.get(name)
            if isinstance(parts, list):
                return len(parts)
    return 0


def decoded_size(base64_text: str) -> int:
    """How many bytes a base64 text stands for, from its length alone (no decoding)."""
    length = len(base64_text)
    padding = base64_text.count("=", max(0, length - 2))
    return max(0, (length - padding) * 3 // 4)


def check_message(message: Message, settings: Settings) -> None:
    """Refuse a message over `max_message_parts`, `max_file_bytes` or `max_message_file_bytes`."""
    check_parts_count(len(message.parts), settings)
    total = 0
    for index, part in enumerate(message.parts):
        if part.raw is None:
            continue
        size = decoded_size(part.raw)
        if size > settings.max_file_bytes:
            raise LimitExceededError(
                f"File part {index} is {size} bytes; a file may have at most "
                f"{settings.max_file_bytes} bytes (send larger files by URI)",
                limit="max_file_bytes",
                maximum=settings.max_file_bytes,
                actual=size,
                status=413,
            )
        total += size
    if total > settings.max_message_file_bytes:
        raise LimitExceededError(
            f"The message's files are {total} bytes; a message may carry at most "
            f"{settings.max_message_file_bytes} bytes of files (send larger files by URI)",
            limit="max_message_file_bytes",
            maximum=settings.max_message_file_bytes,
            actual=total,
            status=413,
        )


def task_too_large(maximum: int, actual: int) -> LimitExceededError:
    """The refusal of a client's message that would take its task over `max_task_bytes`."""
    return LimitExceededError(
        f"With this message the task would hold {actual} bytes; a task may hold at most "
        f"{maximum} bytes (start a new task in the same contextId, or send files by URI)",
        limit="max_task_bytes",
        maximum=maximum,
        actual=actual,
        status=413,
    )


def over_store_limit(store_limit: str, maximum: int, actual: int) -> LimitExceededError:
    """The refusal of a client's message that would take its task over one of the store's own
    limits (`StoreLimitExceeded`: a DynamoDB item, a Firestore document); nothing is stored."""
    refusal = LimitExceededError(
        f"With this message the task would need {actual} bytes in {store_limit}, which takes "
        f"at most {maximum} (give the store a content bucket, where parts over 16 KB of JSON "
        "are kept, or send files by URI)",
        limit="store",
        maximum=maximum,
        actual=actual,
        status=413,
    )
    refusal.data = {"limit": "store", "store": store_limit, "max": maximum, "actual": actual}
    return refusal


def store_full(store_limit: str, maximum: int) -> ServiceUnavailableError:
    """The refusal of a new task when the store keeps as many tasks as it may and none of them
    can make room (`StoreFull`: a memory store whose every task is still active). Not the
    client's fault, and over once tasks finish: 503 with `Retry-After` (-32603 over JSON-RPC),
    naming the limit; nothing is stored."""
    refusal = ServiceUnavailableError(
        f"The task store is full: it keeps at most {maximum} tasks ({store_limit}) and none of "
        "them has finished; send the message again once some have"
    )
    refusal.data = {
        "reason": "store-full",
        "limit": "store",
        "store": store_limit,
        "max": maximum,
        "retryAfterSeconds": refusal.retry_after_s,
    }
    return refusal


def check_push_config(config: TaskPushNotificationConfig, at: str) -> None:
    """Refuse a push config id with a "/" (its REST resource name, and URL, would name
    another resource), and a token or credentials that cannot go in an HTTP header (printable
    ASCII only: every notification carries them as header values; refused now rather than
    failing every delivery later).
    """
    if config.id and "/" in config.id:
        raise InvalidParamsError(
            data={"errors": [{"field": f"{at}.id", "message": "Must not contain '/'"}]}
        )
    values = [("token", config.token)]
    if config.authentication is not None:
        values.append(("authentication.credentials", config.authentication.credentials))
    for name, value in values:
        if value and not (value.isascii() and value.isprintable()):
            raise InvalidParamsError(
                data={
                    "errors": [
                        {
                            "field": f"{at}.{name}",
                            "message": "Must be printable ASCII (it is sent as a header value)",
                        }
                    ]
                }
            )


def check_send(params: SendMessageRequest, settings: Settings) -> None:
    """The limits on a message/send or message/stream request: its message, and the push config
    it may carry."""
    check_message(params.message, settings)
    push = params.configuration.task_push_notification_config if params.configuration else None
    if push is not None:
        check_push_config(push, "configuration.pushNotificationConfig")


def check_list(params: ListTasksRequest) -> None:
    """The limit on a tasks/list request: a time filter a Store can hold. (Each codec reads its
    own form of the filter into milliseconds, refusing what is out of range under the name its
    client sent: this holds a caller that builds the request itself.)"""
    if (params.status_timestamp_after_ms or 0) > MAX_INT64:
        raise InvalidParamsError(
            data={"errors": [{"field": "statusTimestampAfter", "message": "Must fit in 64 bits"}]}
        )


# Compiled on first use, by re's own cache: most processes never read a time filter.
_RFC3339 = (
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt]"  # the date, "T"
    r"[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})"  # the time, its offset
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)


def timestamp_ms(value: str, name: str) -> int:
    """Milliseconds since the epoch of an RFC 3339 date-time (a request's time filter, in any
    binding); 0 for any time before it. -32602 / 400 naming `name` for anything else."""
    try:
        if not re.fullmatch(_RFC3339, value):
            raise ValueError(value)
        moment = datetime.fromisoformat(value.upper())
        milliseconds = (moment - _EPOCH) // _MILLISECOND
    except (ValueError, OverflowError):
        raise InvalidParamsError(
            data={"errors": [{"field": name, "message": "Not an RFC 3339 date-time"}]}
        ) from None
    return max(0, milliseconds)
