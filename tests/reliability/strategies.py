"""Hypothesis strategies for JSON-RPC request bodies: valid requests of every method, the same
mutated (wrong types, missing or unknown fields, duplicate keys, huge numbers, odd unicode, deep
nesting, JSON that is not JSON), and arbitrary bytes and JSON.

Bodies are built as Python values and then written by `encode`, which also writes what
`json.dumps` cannot: duplicate keys (`Pairs`), and verbatim text (`Raw`, e.g. `NaN`, `1e400`,
a 5000-digit integer, nesting 3000 levels deep). Task ids are drawn from `TASK_MARKERS`, which
the test replaces with ids of real tasks, or are random.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from a2a_serverless.v03.methods import METHODS

TASK_MARKERS = ["@@task0@@", "@@task1@@", "@@task2@@"]
WEBHOOK_MARKER = "@@webhook@@"
METHOD_NAMES = sorted(METHODS)


class Pairs(list[tuple[str, Any]]):
    """A JSON object written from (key, value) pairs, so a key may appear twice."""


@dataclass(frozen=True)
class Raw:
    """JSON text written as it is (it need not be JSON at all)."""

    text: str


def encode(value: Any, *, ascii_only: bool = False) -> str:
    """The JSON text of a value built from dicts, lists, scalars, `Pairs` and `Raw`.

    Written without recursion: mutated requests nest hundreds of levels deep, and on Python
    3.12 a recursive encoder (a `str.join` over a generator per level) ran out of C stack at
    about 600 levels, failing the fuzz tests in their own encoder."""
    out: list[str] = []
    # What is left to write, last first: values, and `Raw` for the punctuation between them.
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, Raw):
            out.append(item.text)
            continue
        if isinstance(item, dict) and not isinstance(item, Pairs):
            item = Pairs(item.items())
        if isinstance(item, Pairs):
            parts: list[Any] = [Raw("{")]
            for index, (key, member) in enumerate(item):
                parts += [Raw(",")] if index else []
                parts += [key, Raw(":"), member]
            pending += reversed([*parts, Raw("}")])
            continue
        if isinstance(item, list):
            parts = [Raw("[")]
            for index, member in enumerate(item):
                parts += [Raw(","), member] if index else [member]
            pending += reversed([*parts, Raw("]")])
            continue
        # Strings may hold lone surrogates: escaped (\ud800) by ensure_ascii, else as they are.
        out.append(json.dumps(item, ensure_ascii=ascii_only))
    return "".join(out)


# --- scalars and values ------------------------------------------------------------------------

_SPECIAL_TEXT = [
    "",
    "ask",
    "ask me",
    "hello",
    "\x00",
    "a\x00b",
    "\u202e\u0645\u0631\u062d\u0628\u0627",  # right-to-left override, Arabic
    "\U0001f600\u200d\U0001f4bb",  # emoji with a zero-width joiner
    "\ufeff",
    "\ud800",  # a lone high surrogate
    "\udfff",
    "e\u0301" * 3,  # combining marks
    "x" * 5000,
    "tasks/x/pushNotificationConfigs/y",
    "TASK_STATE_WORKING",
    "../../etc/passwd",
    "%00%2F",
    "'; DROP TABLE tasks; --",
]

texts = st.one_of(
    st.text(max_size=20),
    st.text(st.characters(codec=None, categories=["Cs", "Cc", "Lo", "So", "Mn", "Zs"]), max_size=8),
    st.sampled_from(_SPECIAL_TEXT),
)
ids = st.one_of(st.sampled_from(TASK_MARKERS), texts)
huge_ints = st.sampled_from([2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64, 10**30, -(10**30)])
integers = st.one_of(st.integers(-5, 200), st.integers(), huge_ints)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    integers,
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(texts, children, max_size=4)
    ),
    max_leaves=12,
)
objects = st.dictionaries(texts, json_values, max_size=4)

# Verbatim text that is not quite a JSON value, or one a parser may choke on.
raw_values = st.sampled_from(
    [
        Raw("NaN"),
        Raw("Infinity"),
        Raw("-Infinity"),
        Raw("1e400"),
        Raw("-1e400"),
        Raw("1" + "0" * 5000),
        Raw("1" + "0" * 400),
        Raw("0." + "0" * 400 + "1"),
        Raw("1e-400"),
        Raw("-0"),
        Raw("01"),
        Raw("1."),
        Raw(".5"),
        Raw("+1"),
        Raw("0x10"),
        Raw('"\\ud800"'),
        Raw('"\\udc00\\ud800"'),
        Raw('"\\ud83d\\ude00"'),
        Raw('"\\u0000"'),
        Raw('"\t"'),
        Raw('"\\x41"'),
        Raw("'single'"),
        Raw("[" * 40 + "]" * 40),
        Raw("[" * 3000 + "]" * 3000),
        Raw('{"a":' * 40 + "1" + "}" * 40),
        Raw("[1,]"),
        Raw("{,}"),
        Raw("true false"),
        Raw("undefined"),
        Raw("/* comment */ 1"),
    ]
)


# --- valid requests ----------------------------------------------------------------------------

base64_text = st.binary(max_size=64).map(lambda b: base64.b64encode(b).decode())
media_types = st.one_of(
    st.sampled_from(["text/plain", "application/json", "image/png", "application/octet-stream"]),
    texts,
)
text_parts = st.fixed_dictionaries(
    {"kind": st.just("text"), "text": texts}, optional={"metadata": objects}
)
file_parts = st.fixed_dictionaries(
    {
        "kind": st.just("file"),
        "file": st.one_of(
            st.fixed_dictionaries(
                {"bytes": base64_text}, optional={"mimeType": media_types, "name": texts}
            ),
            st.fixed_dictionaries(
                {"uri": st.sampled_from(["https://example.com/f.png", "file:///etc/passwd"])},
                optional={"mimeType": media_types, "name": texts},
            ),
        ),
    },
    optional={"metadata": objects},
)
data_parts = st.fixed_dictionaries(
    {"kind": st.just("data"), "data": objects}, optional={"metadata": objects}
)
parts = st.one_of(text_parts, file_parts, data_parts)

message_ids = st.one_of(st.uuids().map(str), texts)
# A message's optional members, the same in 0.3 and 1.0.
message_options: dict[str, st.SearchStrategy[Any]] = {
    "taskId": ids,
    "contextId": texts,
    "metadata": objects,
    "referenceTaskIds": st.lists(ids, max_size=2),
    "extensions": st.lists(texts, max_size=2),
}
messages = st.fixed_dictionaries(
    {
        "kind": st.just("message"),
        "role": st.just("user"),
        "messageId": message_ids,
        "parts": st.lists(parts, min_size=1, max_size=4),
    },
    optional=message_options,
)
webhook_urls = st.one_of(
    st.just(WEBHOOK_MARKER),
    st.sampled_from(
        [
            "https://127.0.0.1/hook",
            "http://169.254.169.254/latest/meta-data/",
            "https://[::ffff:127.0.0.1]/x",
            "https://user:secret@example.com/hook",
            "ftp://example.com/",
            "not a url",
        ]
    ),
    texts,
)
push_configs = st.fixed_dictionaries(
    {"url": webhook_urls},
    optional={
        "id": texts,
        "token": texts,
        "authentication": st.fixed_dictionaries(
            {"schemes": st.lists(st.sampled_from(["Bearer", "Basic", "x"]), max_size=2)},
            optional={"credentials": texts},
        ),
    },
)
configurations = st.fixed_dictionaries(
    {},
    optional={
        "blocking": st.booleans(),
        "historyLength": st.integers(0, 5),
        "acceptedOutputModes": st.lists(media_types, max_size=2),
        "pushNotificationConfig": push_configs,
    },
)
send_params = st.fixed_dictionaries(
    {"message": messages}, optional={"configuration": configurations, "metadata": objects}
)
states = st.sampled_from(
    ["submitted", "working", "input-required", "completed", "canceled", "failed", "unknown"]
)

PARAMS: dict[str, st.SearchStrategy[Any]] = {
    "message/send": send_params,
    "message/stream": send_params,
    "tasks/get": st.fixed_dictionaries({"id": ids}, optional={"historyLength": st.integers(0, 5)}),
    "tasks/list": st.fixed_dictionaries(
        {},
        optional={
            "contextId": texts,
            "status": states,
            "pageSize": st.integers(1, 100),
            "pageToken": texts,
            "historyLength": st.integers(0, 5),
            "lastUpdatedAfter": st.integers(0, 2**63 - 1),
            "includeArtifacts": st.booleans(),
        },
    ),
    "tasks/cancel": st.fixed_dictionaries({"id": ids}),
    "tasks/resubscribe": st.fixed_dictionaries({"id": ids}),
    "tasks/pushNotificationConfig/set": st.fixed_dictionaries(
        {"taskId": ids, "pushNotificationConfig": push_configs}
    ),
    "tasks/pushNotificationConfig/get": st.fixed_dictionaries(
        {"id": ids}, optional={"pushNotificationConfigId": texts}
    ),
    "tasks/pushNotificationConfig/list": st.fixed_dictionaries({"id": ids}),
    "tasks/pushNotificationConfig/delete": st.fixed_dictionaries(
        {"id": ids, "pushNotificationConfigId": texts}
    ),
    "agent/getAuthenticatedExtendedCard": st.one_of(st.none(), st.just({})),
}
request_ids = st.one_of(st.integers(-(2**31), 2**31), st.text(max_size=12), st.none())


@st.composite
def valid_requests(draw: st.DrawFn, method: str | None = None) -> dict[str, Any]:
    """A valid JSON-RPC request of `method` (or any method); a notification now and then."""
    name = method or draw(st.sampled_from(METHOD_NAMES))
    request: dict[str, Any] = {"jsonrpc": "2.0", "method": name}
    if draw(st.integers(0, 9)) > 0:
        request["id"] = draw(request_ids)
    params = draw(PARAMS[name])
    if params is not None:
        request["params"] = params
    return request


# --- mutations ---------------------------------------------------------------------------------


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every position inside `value` (dicts and lists are walked; Pairs and Raw are leaves)."""
    found = [path]
    if isinstance(value, dict) and not isinstance(value, Pairs):
        for key, child in value.items():
            found += _paths(child, (*path, key))
    elif isinstance(value, list) and not isinstance(value, Pairs):
        for index, child in enumerate(value):
            found += _paths(child, (*path, index))
    return found


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replace(copy[head], rest, new)
    return copy


def _delete(value: Any, path: tuple[Any, ...]) -> Any:
    head, rest = path[0], path[1:]
    if not rest:
        if isinstance(value, dict):
            return {k: v for k, v in value.items() if k != head}
        return [v for i, v in enumerate(value) if i != head]
    if isinstance(value, dict):
        return {**value, head: _delete(value[head], rest)}
    copy = list(value)
    copy[head] = _delete(copy[head], rest)
    return copy


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _nest(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = [value]
    return value


@st.composite
def mutated(draw: st.DrawFn, value: Any) -> Any:
    """`value` with one thing wrong somewhere (in the params four times out of five)."""
    paths = _paths(value)
    in_params = [p for p in paths if p[:1] == ("params",)]
    if in_params and draw(st.integers(0, 4)) > 0:
        paths = in_params
    path = draw(st.sampled_from(paths))
    here = _get(value, path)
    operations = ["replace", "raw", "huge", "text", "nest", "empty"]
    if path:
        operations.append("delete")
    if isinstance(here, dict) and not isinstance(here, Pairs):
        operations += ["unknown-key", "duplicate-key"]
        if here:
            operations.append("duplicate-key")
    if isinstance(here, list) and not isinstance(here, Pairs):
        operations += ["many-items"]
    operation = draw(st.sampled_from(operations))
    if operation == "replace":
        return _replace(value, path, draw(json_values))
    if operation == "raw":
        return _replace(value, path, draw(raw_values))
    if operation == "huge":
        return _replace(value, path, draw(huge_ints))
    if operation == "text":
        return _replace(value, path, draw(texts))
    if operation == "nest":
        return _replace(value, path, _nest(here, draw(st.sampled_from([1, 1, 5, 30, 40, 200]))))
    if operation == "empty":
        return _replace(value, path, draw(st.sampled_from([[], {}, "", 0, None, False])))
    if operation == "delete":
        return _delete(value, path)
    if operation == "unknown-key":
        return _replace(value, path, {**here, draw(texts): draw(json_values)})
    if operation == "many-items":
        return _replace(value, path, here * draw(st.sampled_from([2, 60, 200])))
    # duplicate-key: the same key again, the original value first or last.
    pairs = Pairs(here.items())
    key = draw(st.sampled_from([k for k, _ in pairs])) if pairs else draw(texts)
    other = draw(json_values)
    if draw(st.booleans()):
        pairs.append((key, other))
    else:
        pairs.insert(0, (key, other))
    return _replace(value, path, pairs)


@st.composite
def near_valid_bodies(draw: st.DrawFn, method: str | None = None) -> bytes:
    """A valid request of `method` with one to three mutations, written as a body."""
    request: Any = draw(valid_requests(method))
    for _ in range(draw(st.integers(1, 3))):
        request = draw(mutated(request))
    return _write(draw, request)


@st.composite
def valid_bodies(draw: st.DrawFn, method: str | None = None) -> bytes:
    return _write(draw, draw(valid_requests(method)))


def _write(draw: st.DrawFn, value: Any) -> bytes:
    text = encode(value, ascii_only=draw(st.booleans()))
    # A lone surrogate written unescaped is not UTF-8: its bytes as "surrogatepass" writes them
    # (ED A0 80: invalid UTF-8), or "?".
    return text.encode("utf-8", draw(st.sampled_from(["surrogatepass", "replace"])))


@st.composite
def broken_bytes(draw: st.DrawFn) -> bytes:
    """A body that is not a JSON-RPC request at all, or a request broken at the byte level."""
    kind = draw(st.sampled_from(["binary", "json", "envelope", "truncated", "encoding", "raw"]))
    if kind == "binary":
        return draw(st.binary(max_size=200))
    if kind == "json":
        return _write(draw, draw(json_values))
    if kind == "envelope":
        envelope = draw(
            st.dictionaries(
                st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "x"]),
                json_values,
                max_size=5,
            )
        )
        return _write(draw, envelope)
    if kind == "raw":
        return draw(raw_values).text.encode("utf-8", "replace")
    body = draw(valid_bodies())
    if kind == "truncated":
        return body[: draw(st.integers(0, max(0, len(body) - 1)))]
    encoding = draw(st.sampled_from(["utf-16", "utf-32", "latin-1-mangled", "bom", "garbage"]))
    if encoding == "bom":
        return b"\xef\xbb\xbf" + body
    if encoding == "garbage":
        return body + draw(st.binary(min_size=1, max_size=8))
    if encoding == "latin-1-mangled":
        return body.decode("utf-8", "replace").encode("latin-1", "replace") + b"\xff"
    return body.decode("utf-8", "replace").encode(encoding)
