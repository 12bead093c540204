"""API Gateway HTTP API and Lambda function URL events (payload format 2.0), both ways.

The HTTP handler's own translation for the event format its deployments use (serverless.yml's
`httpApi`, Terraform's `aws_apigatewayv2_api`, function URLs): the event becomes a core
`Request` and the `Response` becomes the event's answer, with nothing in between — about 10 us
less per warm call than building an ASGI scope and reading it back. REST API (v1), ALB and
Lambda@Edge events still go through Mangum's event handlers (lambda_http.py). The request keeps
the event as `scope["aws.event"]`, as Mangum does, for upstream authentication and the stage in
public URLs; the rules follow Mangum's HTTPGateway handler. A named stage is the scope's root
path (`staged`), for these events and for those Mangum translates.
"""

from __future__ import annotations

import base64
from typing import Any

from a2a_serverless.http import Request, Response, Scope
from a2a_serverless.publicurl import api_gateway_stage

# Response content types sent as text; anything else goes base64-encoded (what Mangum does),
# a third larger: A2A 1.0's own JSON type is text too (Lambda's 6 MiB response limit counts it).
TEXT_TYPES = (
    "text/",
    "application/json",
    "application/a2a+json",
    "application/javascript",
    "application/xml",
)


def is_http_api_event(event: dict[str, Any]) -> bool:
    """A payload format 2.0 event: an HTTP API's or a function URL's."""
    return event.get("version") == "2.0" and "requestContext" in event


def request_from_event(event: dict[str, Any], context: Any) -> Request:
    http = event["requestContext"]["http"]
    headers = {name.lower(): value for name, value in (event.get("headers") or {}).items()}
    cookies = event.get("cookies")
    if cookies:
        headers["cookie"] = "; ".join(cookies)
    body = event.get("body") or b""
    if event.get("isBase64Encoded"):
        body = base64.b64decode(body)
    elif isinstance(body, str):
        body = body.encode()
    scope = {
        "type": "http",
        "method": http["method"],
        "path": _decoded_path(http["path"] or "/"),
        "root_path": "",
        "scheme": headers.get("x-forwarded-proto", "https"),
        "server": None,
        "query_string": (event.get("rawQueryString") or "").encode(),
        "client": (http.get("sourceIp"), 0),
        "aws.event": event,
        "aws.context": context,
    }
    return Request(staged(scope, event), body=body, headers=headers)


def staged(scope: Scope, event: dict[str, Any]) -> Scope:
    """`scope` with a named API Gateway stage as its root path, so that the routes see the
    path below it (`/prod/v1/tasks` routes as `/v1/tasks`) while the card, the inspector and
    an app's own URLs keep it. An HTTP API's event (payload 2.0 or 1.0) has the stage in its
    path, a REST API's (no `version`) leaves it out."""
    stage = api_gateway_stage(event)
    if not stage:
        return scope
    path: str = scope["path"]
    if "version" not in event:
        path = stage + path
    elif path != stage and not path.startswith(stage + "/"):
        return scope  # not under the stage: routed as it came
    return {**scope, "root_path": stage, "path": path}


def event_response(response: Response) -> dict[str, Any]:
    """The answer Lambda hands back to the HTTP API or function URL for `response`."""
    headers: dict[str, str] = {}
    cookies: list[str] = []
    for raw_name, raw_value in response.headers:
        name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        if name == "set-cookie":
            cookies.append(value)
        elif name in headers:
            headers[name] = f"{headers[name]},{value}"
        else:
            headers[name] = value
    body, binary = response.body, False
    if body and "content-type" not in headers:
        headers["content-type"] = "application/json"
    text = ""
    if body:
        if headers["content-type"].startswith(TEXT_TYPES) and "content-encoding" not in headers:
            try:
                text = body.decode()
            except UnicodeDecodeError:
                binary = True
        else:
            binary = True
        if binary:
            text = base64.b64encode(body).decode()
    answer: dict[str, Any] = {"statusCode": response.status, "body": text}
    if headers:
        answer["headers"] = headers
    if cookies:
        answer["cookies"] = cookies
    answer["isBase64Encoded"] = binary
    return answer


def _decoded_path(path: str) -> str:
    """The event's path percent-decoded, as an ASGI scope's `path` is."""
    if "%" not in path:
        # What unquote returns too, without loading urllib.parse (and ipaddress: ~2 ms).
        return path
    from urllib.parse import unquote

    return unquote(path)
