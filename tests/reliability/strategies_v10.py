"""Hypothesis strategies for A2A 1.0 requests: the params of each 1.0 method in 1.0's shapes
(Part oneof, enum names, flat push configs), as JSON-RPC requests and as HTTP+JSON calls.

The values (odd texts, huge integers, task-id markers, webhook URLs) and the mutations are
strategies.py's, shared with the 0.3 fuzzer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from hypothesis import strategies as st

from a2a_serverless.v10.methods import METHODS
from tests.reliability.strategies import (
    base64_text,
    ids,
    integers,
    json_values,
    media_types,
    message_ids,
    message_options,
    mutated,
    objects,
    request_ids,
    texts,
    webhook_urls,
)

METHOD_NAMES = sorted(METHODS)

_part_content = st.one_of(
    st.fixed_dictionaries({"text": texts}),
    st.fixed_dictionaries({"raw": base64_text}),
    st.fixed_dictionaries(
        {"url": st.sampled_from(["https://example.com/f.png", "file:///etc/passwd"])}
    ),
    st.fixed_dictionaries({"data": json_values}),
)
parts = st.tuples(
    _part_content,
    st.fixed_dictionaries(
        {}, optional={"mediaType": media_types, "filename": texts, "metadata": objects}
    ),
).map(lambda pair: {**pair[0], **pair[1]})
messages = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["ROLE_USER", "ROLE_USER", "ROLE_AGENT"]),
        "messageId": message_ids,
        "parts": st.lists(parts, min_size=1, max_size=4),
    },
    optional=message_options,
)
push_configs = st.fixed_dictionaries(
    {"url": webhook_urls},
    optional={
        "id": texts,
        "token": texts,
        "authentication": st.fixed_dictionaries(
            {"scheme": st.sampled_from(["Bearer", "Basic", "x"])},
            optional={"credentials": texts},
        ),
    },
)
configurations = st.fixed_dictionaries(
    {},
    optional={
        "returnImmediately": st.booleans(),
        "historyLength": st.integers(0, 5),
        "acceptedOutputModes": st.lists(media_types, max_size=2),
        "taskPushNotificationConfig": push_configs,
    },
)
tenants = st.one_of(st.just(""), st.sampled_from(["acme", "other"]), texts)
states = st.sampled_from(
    [
        "TASK_STATE_SUBMITTED",
        "TASK_STATE_WORKING",
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_COMPLETED",
        "TASK_STATE_CANCELED",
        "TASK_STATE_UNSPECIFIED",
        "submitted",
    ]
)
timestamps = st.one_of(
    st.sampled_from(
        ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00.123456789+02:00", "1970-01-01T00:00:00Z"]
    ),
    st.datetimes().map(lambda d: d.isoformat() + "Z"),
    texts,
)
send_params = st.fixed_dictionaries(
    {"message": messages},
    optional={"configuration": configurations, "metadata": objects, "tenant": tenants},
)
list_params = st.fixed_dictionaries(
    {},
    optional={
        "contextId": texts,
        "status": states,
        "pageSize": st.one_of(st.integers(1, 100), integers),
        "pageToken": texts,
        "historyLength": st.integers(0, 5),
        "statusTimestampAfter": timestamps,
        "includeArtifacts": st.booleans(),
        "tenant": tenants,
    },
)
task_push_ref = st.fixed_dictionaries({"taskId": ids, "id": texts}, optional={"tenant": tenants})

PARAMS: dict[str, st.SearchStrategy[Any]] = {
    "SendMessage": send_params,
    "SendStreamingMessage": send_params,
    "GetTask": st.fixed_dictionaries(
        {"id": ids}, optional={"historyLength": st.integers(0, 5), "tenant": tenants}
    ),
    "ListTasks": list_params,
    "CancelTask": st.fixed_dictionaries({"id": ids}, optional={"metadata": objects}),
    "SubscribeToTask": st.fixed_dictionaries({"id": ids}, optional={"tenant": tenants}),
    "CreateTaskPushNotificationConfig": st.tuples(push_configs, ids).map(
        lambda pair: {**pair[0], "taskId": pair[1]}
    ),
    "GetTaskPushNotificationConfig": task_push_ref,
    "ListTaskPushNotificationConfigs": st.fixed_dictionaries(
        {"taskId": ids},
        optional={"pageSize": st.integers(0, 100), "pageToken": texts, "tenant": tenants},
    ),
    "DeleteTaskPushNotificationConfig": task_push_ref,
    "GetExtendedAgentCard": st.one_of(
        st.none(), st.just({}), st.fixed_dictionaries({"tenant": tenants})
    ),
}
assert set(PARAMS) == set(METHODS), "a 1.0 method was added: give it a params strategy"


@st.composite
def requests(draw: st.DrawFn, method: str | None = None, *, mutate: bool = False) -> Any:
    """A JSON-RPC request of a 1.0 method (a notification now and then), mutated if asked."""
    name = method or draw(st.sampled_from(METHOD_NAMES))
    request: Any = {"jsonrpc": "2.0", "method": name}
    if draw(st.integers(0, 9)) > 0:
        request["id"] = draw(request_ids)
    params = draw(PARAMS[name])
    if params is not None:
        request["params"] = params
    if mutate:
        for _ in range(draw(st.integers(1, 3))):
            request = draw(mutated(request))
    return request


# --- HTTP+JSON ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RestCall:
    method: str
    path: str
    query: str = ""
    # None: no body at all.
    body: Any = None
    content_type: str = "application/a2a+json"
    # The route answers with an SSE stream when it succeeds.
    streaming: bool = False


_path_ids = st.one_of(ids, st.sampled_from(["", "%2F", "..", "a:b", "x/y", "%00"]))


def _segment(value: str) -> str:
    # "@" keeps the task markers whole; a lone surrogate is sent as its (invalid UTF-8) bytes.
    return quote(value.encode("utf-8", "surrogatepass"), safe="@")


@st.composite
def rest_calls(draw: st.DrawFn, *, mutate: bool = False) -> RestCall:
    """A call of one of 1.0's HTTP+JSON routes, maybe under a tenant, maybe with a wrong verb,
    odd query parameters or a mutated body."""
    task = _segment(draw(_path_ids))
    config = _segment(draw(texts))
    kind = draw(st.sampled_from(sorted(_ROUTE_KINDS)))
    verb, path, streaming = _ROUTE_KINDS[kind](task, config)
    if draw(st.integers(0, 4)) == 0:
        path = f"/{_segment(draw(tenants)) or 'acme'}{path}"
    if draw(st.integers(0, 9)) == 0:
        verb = draw(st.sampled_from(["GET", "POST", "DELETE", "PUT", "PATCH"]))
    body: Any = None
    if kind in ("send", "stream"):
        body = draw(send_params)
    elif kind == "createPush":
        body = draw(push_configs)
    elif kind in ("cancel", "subscribePost") and draw(st.booleans()):
        body = draw(st.one_of(st.just({}), st.fixed_dictionaries({"id": ids})))
    if mutate and body is not None:
        for _ in range(draw(st.integers(1, 3))):
            body = draw(mutated(body))
    query_params = draw(
        st.dictionaries(
            st.sampled_from(
                [
                    "contextId",
                    "status",
                    "pageSize",
                    "pageToken",
                    "historyLength",
                    "statusTimestampAfter",
                    "includeArtifacts",
                    "A2A-Version",
                    "unknown",
                ]
            ),
            st.one_of(texts, integers.map(str), st.sampled_from(["true", "false", "1.0"])),
            max_size=3,
        )
    )
    query = urlencode(query_params, encoding="utf-8", errors="surrogatepass")
    content_type = draw(
        st.sampled_from(["application/a2a+json", "application/json", "text/plain", ""])
    )
    return RestCall(verb, path, query, body, content_type, streaming)


_ROUTE_KINDS: dict[str, Any] = {
    "send": lambda t, c: ("POST", "/message:send", False),
    "stream": lambda t, c: ("POST", "/message:stream", True),
    "list": lambda t, c: ("GET", "/tasks", False),
    "get": lambda t, c: ("GET", f"/tasks/{t}", False),
    "cancel": lambda t, c: ("POST", f"/tasks/{t}:cancel", False),
    "subscribeGet": lambda t, c: ("GET", f"/tasks/{t}:subscribe", True),
    "subscribePost": lambda t, c: ("POST", f"/tasks/{t}:subscribe", True),
    "createPush": lambda t, c: ("POST", f"/tasks/{t}/pushNotificationConfigs", False),
    "listPush": lambda t, c: ("GET", f"/tasks/{t}/pushNotificationConfigs", False),
    "getPush": lambda t, c: ("GET", f"/tasks/{t}/pushNotificationConfigs/{c}", False),
    "deletePush": lambda t, c: ("DELETE", f"/tasks/{t}/pushNotificationConfigs/{c}", False),
    "extendedCard": lambda t, c: ("GET", "/extendedAgentCard", False),
}
