"""The HTTP handler's own translation of payload format 2.0 events (HTTP API, function URLs):
what reaches the core and what goes back, in the cases the end-to-end tests do not reach."""

from __future__ import annotations

import base64
from typing import Any

from a2a_serverless.http import Response
from a2a_serverless_aws.http_api import event_response, is_http_api_event, request_from_event


def event(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "version": "2.0",
        "rawPath": "/v1/tasks/a%20b",
        "rawQueryString": "historyLength=2&x=%2F",
        "headers": {
            "Host": "abc.execute-api.us-east-1.amazonaws.com",
            "X-Forwarded-Proto": "https",
        },
        "requestContext": {
            "http": {"method": "GET", "path": "/v1/tasks/a%20b", "sourceIp": "203.0.113.7"},
            "stage": "$default",
        },
        "isBase64Encoded": False,
    }
    base.update(overrides)
    return base


def test_only_payload_v2_events_are_ours() -> None:
    assert is_http_api_event(event())
    assert not is_http_api_event({"version": "1.0", "requestContext": {}, "resource": "/"})
    assert not is_http_api_event({"requestContext": {"elb": {}}, "httpMethod": "GET"})


async def test_request_carries_path_query_headers_cookies_and_the_event() -> None:
    raw = event(cookies=["a=1", "b=2"])
    request = request_from_event(raw, context="ctx")
    assert (request.method, request.path) == ("GET", "/v1/tasks/a b")
    assert request.scope["query_string"] == b"historyLength=2&x=%2F"
    assert request.headers["host"] == "abc.execute-api.us-east-1.amazonaws.com"
    assert request.headers["cookie"] == "a=1; b=2"
    assert request.scope["aws.event"] is raw and request.scope["aws.context"] == "ctx"
    assert request.base_url() == "https://abc.execute-api.us-east-1.amazonaws.com"
    assert await request.body(10) == b""


async def test_bodies_text_and_base64() -> None:
    text = request_from_event(event(body='{"a":1}'), None)
    assert await text.body(100) == b'{"a":1}'
    encoded = base64.b64encode('{"é":1}'.encode()).decode()
    binary = request_from_event(event(body=encoded, isBase64Encoded=True), None)
    assert await binary.body(100) == '{"é":1}'.encode()


def test_response_text_binary_and_repeated_headers() -> None:
    json_answer = event_response(
        Response(
            200,
            [(b"content-type", b"application/json"), (b"x-a", b"1"), (b"X-A", b"2")],
            b'{"ok":true}',
        )
    )
    assert json_answer == {
        "statusCode": 200,
        "body": '{"ok":true}',
        "headers": {"content-type": "application/json", "x-a": "1,2"},
        "isBase64Encoded": False,
    }
    sse = event_response(Response(200, [(b"content-type", b"text/event-stream")], b"data: 1\n\n"))
    assert sse["body"] == "data: 1\n\n" and sse["isBase64Encoded"] is False
    blob = event_response(Response(200, [(b"content-type", b"image/png")], b"\x89PNG"))
    assert blob["isBase64Encoded"] is True and base64.b64decode(blob["body"]) == b"\x89PNG"
    empty = event_response(Response(204, [(b"set-cookie", b"s=1")]))
    assert empty == {"statusCode": 204, "body": "", "cookies": ["s=1"], "isBase64Encoded": False}


def test_a_named_stage_is_the_root_path_routed_below_and_kept_in_urls() -> None:
    # Issue 31: on a named stage (`rawPath=/prod/...`) every route answered 404.
    host = "abc.execute-api.us-east-1.amazonaws.com"
    context = {
        "http": {"method": "GET", "path": "/prod/v1/tasks/t-1", "sourceIp": "203.0.113.7"},
        "stage": "prod",
        "domainName": host,
    }
    request = request_from_event(event(rawPath="/prod/v1/tasks/t-1", requestContext=context), None)
    assert request.path == "/v1/tasks/t-1"
    assert request.scope["root_path"] == "/prod"
    assert request.base_url() == f"https://{host}/prod"
    # The stage alone is the root.
    root = {**context, "http": {**context["http"], "path": "/prod"}}
    assert request_from_event(event(rawPath="/prod", requestContext=root), None).path == "/"
    # The $default stage, a custom domain (which maps the stage away) and a function URL
    # have no stage in the path: routed as they came.
    for stage, domain in [
        ("$default", host),
        ("prod", "api.example.com"),
        ("$default", "xyz.lambda-url.us-east-1.on.aws"),
    ]:
        other = {**context, "stage": stage, "domainName": domain}
        plain = request_from_event(event(rawPath="/prod/v1/tasks/t-1", requestContext=other), None)
        assert (plain.path, plain.scope["root_path"]) == ("/prod/v1/tasks/t-1", "")


def test_staged_scopes_of_rest_api_and_payload_1_events() -> None:
    from a2a_serverless_aws.http_api import staged

    context = {"stage": "prod", "domainName": "abc.execute-api.us-east-1.amazonaws.com"}
    scope = {"path": "/v1/card", "root_path": ""}
    # A REST API's event leaves the stage out of its path; an HTTP API's payload 1.0 has it.
    rest = staged(scope, {"resource": "/{proxy+}", "requestContext": context})
    assert (rest["path"], rest["root_path"]) == ("/prod/v1/card", "/prod")
    v1 = staged({**scope, "path": "/prod/v1/card"}, {"version": "1.0", "requestContext": context})
    assert (v1["path"], v1["root_path"]) == ("/prod/v1/card", "/prod")
    # A path that is not under the stage (no such event from API Gateway) is left alone.
    odd = staged({**scope, "path": "/production"}, {"version": "2.0", "requestContext": context})
    assert odd == {**scope, "path": "/production"}


def test_a2a_json_goes_as_text() -> None:
    # A2A 1.0's media type is JSON text: base64 would make it a third larger (and Lambda's
    # 6 MiB response limit counts the envelope).
    answer = event_response(Response(200, [(b"content-type", b"application/a2a+json")], b"{}"))
    assert answer["body"] == "{}" and answer["isBase64Encoded"] is False
    gzipped = Response(
        200,
        [(b"content-type", b"application/json"), (b"content-encoding", b"gzip")],
        b"\x1f\x8b\x08\x00",
    )
    assert event_response(gzipped)["isBase64Encoded"] is True
