"""Identities verified upstream: API Gateway events (as Mangum puts them in the ASGI scope) and
Google Cloud proxies' headers."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from a2a_serverless.auth import (
    InvalidCredentials,
    RequestView,
    Security,
    Unauthenticated,
    UpstreamIdentityAuthenticator,
)
from a2a_serverless.models import OpenIdConnectSecurityScheme


def mangum_scope(event: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
    """The scope Mangum builds for an API Gateway event: the event rides along as aws.event."""
    return {
        "type": "http",
        "method": "POST",
        "path": "/",
        "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
        "query_string": b"",
        "aws.event": event,
        "aws.context": None,
    }


def rest_v1_event(authorizer: dict[str, Any] | None, identity: dict[str, Any] | None = None) -> Any:
    context: dict[str, Any] = {
        "resourcePath": "/",
        "httpMethod": "POST",
        "stage": "prod",
        "identity": identity or {"sourceIp": "203.0.113.9", "userArn": None},
    }
    if authorizer is not None:
        context["authorizer"] = authorizer
    return {"resource": "/", "path": "/", "httpMethod": "POST", "requestContext": context}


def http_v2_event(authorizer: dict[str, Any] | None) -> dict[str, Any]:
    context: dict[str, Any] = {"routeKey": "POST /", "stage": "$default", "http": {}}
    if authorizer is not None:
        context["authorizer"] = authorizer
    return {"version": "2.0", "routeKey": "POST /", "rawPath": "/", "requestContext": context}


AWS = UpstreamIdentityAuthenticator("gateway", sources=["aws"])


async def aws_identity(event: dict[str, Any]) -> Any:
    return await AWS.authenticate(RequestView.from_asgi_scope(mangum_scope(event)))


async def test_rest_v1_lambda_authorizer() -> None:
    event = rest_v1_event({"principalId": "user-42", "tenant": "acme", "integrationLatency": 3})
    identity = await aws_identity(event)
    assert identity.subject == "user-42" and identity.owner == "gateway:user-42"
    assert identity.claims["tenant"] == "acme" and "integrationLatency" not in identity.claims
    assert identity.claims["upstream_source"] == "aws"


async def test_rest_v1_cognito_user_pool() -> None:
    claims = {"sub": "c0ffee", "email": "a@example.com", "scope": "a2a/invoke openid"}
    identity = await aws_identity(rest_v1_event({"claims": claims}))
    assert identity.subject == "c0ffee" and identity.scopes == {"a2a/invoke", "openid"}


async def test_rest_v1_iam() -> None:
    arn = "arn:aws:iam::123456789012:user/ops"
    identity = await aws_identity(rest_v1_event(None, {"userArn": arn, "accountId": "1234"}))
    assert identity.subject == arn


async def test_http_v2_jwt_authorizer() -> None:
    authorizer: dict[str, Any] = {
        "jwt": {"claims": {"sub": "u-1", "iss": "x"}, "scopes": ["a2a:invoke"]}
    }
    identity = await aws_identity(http_v2_event(authorizer))
    assert identity.owner == "gateway:u-1" and identity.scopes == {"a2a:invoke"}
    authorizer = {"jwt": {"claims": {"sub": "u-2", "scope": "a b"}, "scopes": None}}
    identity = await aws_identity(http_v2_event(authorizer))
    assert identity.scopes == {"a", "b"}


async def test_http_v2_lambda_and_iam_authorizers() -> None:
    identity = await aws_identity(http_v2_event({"lambda": {"sub": "svc-7", "plan": "gold"}}))
    assert identity.subject == "svc-7" and identity.claims["plan"] == "gold"
    iam = {"iam": {"userArn": "arn:aws:sts::1:assumed-role/r/s", "accountId": "1"}}
    identity = await aws_identity(http_v2_event(iam))
    assert identity.subject == "arn:aws:sts::1:assumed-role/r/s"


async def test_no_authorizer_is_absent_and_security_refuses() -> None:
    for event in (rest_v1_event(None), http_v2_event(None), http_v2_event({})):
        assert await aws_identity(event) is None
        with pytest.raises(Unauthenticated):
            await Security([AWS]).authenticate(RequestView.from_asgi_scope(mangum_scope(event)))
    assert await AWS.authenticate(RequestView.from_headers({})) is None  # not on Lambda at all


async def test_sources_are_opt_in() -> None:
    request = RequestView.from_headers({"X-Goog-Authenticated-User-Id": "accounts.google.com:1"})
    assert await AWS.authenticate(request) is None
    security = Security([AWS])
    with pytest.raises(Unauthenticated) as caught:
        await security.authenticate(request)
    assert caught.value.challenges == ['Bearer realm="a2a"']


async def test_authorizer_without_subject_is_refused() -> None:
    with pytest.raises(InvalidCredentials, match="subject"):
        await aws_identity(http_v2_event({"lambda": {"plan": "gold"}}))
    auth = UpstreamIdentityAuthenticator("gw", sources=["aws"], subject_claims=["plan"])
    request = RequestView.from_asgi_scope(mangum_scope(http_v2_event({"lambda": {"plan": "g"}})))
    identity = await auth.authenticate(request)
    assert identity is not None and identity.subject == "g"


# --- Google Cloud ----------------------------------------------------------------------------


def b64(document: dict[str, Any], urlsafe: bool = True, pad: bool = False) -> str:
    raw = json.dumps(document).encode()
    text = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(raw).decode()
    return text if pad else text.rstrip("=")


async def test_iap_headers() -> None:
    auth = UpstreamIdentityAuthenticator("iap", sources=["gcp_iap"])
    request = RequestView.from_asgi_scope(
        mangum_scope(
            {},
            {
                "X-Goog-Authenticated-User-Email": "accounts.google.com:alice@example.com",
                "X-Goog-Authenticated-User-Id": "accounts.google.com:1234567890",
            },
        )
    )
    identity = await auth.authenticate(request)
    assert identity is not None
    assert identity.subject == "1234567890" and identity.claims["email"] == "alice@example.com"
    only_email = RequestView.from_headers(
        {"X-Goog-Authenticated-User-Email": "accounts.google.com:bob@example.com"}
    )
    identity = await auth.authenticate(only_email)
    assert identity is not None and identity.subject == "bob@example.com"


async def test_endpoints_userinfo() -> None:
    auth = UpstreamIdentityAuthenticator("esp", sources=["gcp_endpoints"])
    info = {"iss": "https://securetoken.google.com/p", "sub": "u9", "scope": "read write"}
    for value in (b64(info), b64(info, pad=True), b64(info, urlsafe=False, pad=True)):
        request = RequestView.from_headers({"X-Endpoint-API-UserInfo": value})
        identity = await auth.authenticate(request)
        assert identity is not None
        assert identity.owner == "esp:u9" and identity.scopes == {"read", "write"}
    # the older ESP shape: {"id", "issuer", "claims": "<json>"}
    legacy = {"id": "u10", "issuer": "x", "claims": json.dumps({"email": "e@x", "scope": "r"})}
    identity = await auth.authenticate(
        RequestView.from_headers({"x-endpoint-api-userinfo": b64(legacy)})
    )
    assert identity is not None and identity.subject == "u10" and identity.scopes == {"r"}


async def test_api_gateway_userinfo() -> None:
    auth = UpstreamIdentityAuthenticator(
        "gw",
        sources=["gcp_api_gateway"],
        declared=OpenIdConnectSecurityScheme(
            open_id_connect_url="https://accounts.google.com/.well-known/openid-configuration"
        ),
    )
    request = RequestView.from_headers({"X-Apigateway-Api-Userinfo": b64({"sub": "s1"})})
    identity = await auth.authenticate(request)
    assert identity is not None and identity.subject == "s1"
    assert isinstance(auth.security_scheme(), OpenIdConnectSecurityScheme)


async def test_malformed_userinfo() -> None:
    auth = UpstreamIdentityAuthenticator("gw", sources=["gcp_api_gateway"])
    for value in ("%%%", b64({"sub": "x"})[:-3] + "!!!", base64.b64encode(b"[1]").decode()):
        with pytest.raises(InvalidCredentials, match="malformed"):
            await auth.authenticate(RequestView.from_headers({"x-apigateway-api-userinfo": value}))


async def test_cloud_run_iam_token() -> None:
    auth = UpstreamIdentityAuthenticator("run", sources=["gcp_cloud_run"], subject_claims=["email"])
    payload = {"iss": "https://accounts.google.com", "email": "caller@p.iam.gserviceaccount.com"}
    token = f"{b64({'alg': 'RS256'})}.{b64(payload)}"  # Cloud Run may strip the signature
    for header in ("Authorization", "X-Serverless-Authorization"):
        identity = await auth.authenticate(RequestView.from_headers({header: f"Bearer {token}"}))
        assert identity is not None and identity.subject == "caller@p.iam.gserviceaccount.com"
    assert await auth.authenticate(RequestView.from_headers({"authorization": "Basic x"})) is None
    with pytest.raises(InvalidCredentials):
        await auth.authenticate(RequestView.from_headers({"authorization": "Bearer nodots"}))


def test_configuration_and_card() -> None:
    with pytest.raises(ValueError, match="sources"):
        UpstreamIdentityAuthenticator("x", sources=["azure"])
    with pytest.raises(ValueError, match="sources"):
        UpstreamIdentityAuthenticator("x", sources=[])
    assert AWS.security_scheme().model_dump()["scheme"] == "bearer"
    assert AWS.challenge() == 'Bearer realm="a2a"'
