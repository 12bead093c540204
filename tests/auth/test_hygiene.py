"""Secrets stay secret: never in exception messages, challenges, reprs or logs; importing the
package costs no JOSE or HTTP library."""

from __future__ import annotations

import logging
import subprocess
import sys
import time

import pytest

from a2a_serverless.auth import (
    ApiKeyAuthenticator,
    AuthError,
    BearerJWTAuthenticator,
    RequestView,
    Security,
    UpstreamIdentityAuthenticator,
)

from .support import AUDIENCE, ISSUER, IdentityProvider, Keys, b64url, mint

API_KEY = "sk-live-SECRET-0123456789abcdef"


async def test_secrets_never_in_errors_or_logs(
    keys: Keys, idp: IdentityProvider, caplog: pytest.LogCaptureFixture
) -> None:
    idp.set_jwks(keys.rsa.jwk("k1"))
    security = Security(
        [
            ApiKeyAuthenticator("apiKey", keys={API_KEY: "alice"}),
            BearerJWTAuthenticator(
                "bearer", issuer=ISSUER, audience=AUDIENCE, jwks_url=idp.jwks_url
            ),
            UpstreamIdentityAuthenticator("gw", sources=["gcp_endpoints"]),
        ],
        [{"apiKey": [], "bearer": ["nope"]}, {"gw": []}],
    )
    now = int(time.time())
    tokens = [
        mint(keys.rsa),  # valid, but the requirements want more
        mint(keys.rsa, exp=now - 3600),
        mint(keys.rsa, aud="other"),
        mint(keys.rsa2),
        mint(keys.rsa, kid="unknown"),
        mint(keys.rsa, sub="x\ny"),
        "garbage-SECRET-token-value",
    ]
    wrong_keys = [API_KEY + "x", API_KEY[:-1], "sk-live-WRONG-0123456789abcdef"]
    secrets = [API_KEY, *wrong_keys, *tokens] + [t.split(".")[-1] for t in tokens if t.count(".")]
    caplog.set_level(logging.DEBUG)
    seen: list[AuthError] = []
    for token in tokens:
        for key in [API_KEY, *wrong_keys]:
            headers = {
                "X-API-Key": key,
                "Authorization": f"Bearer {token}",
                "X-Endpoint-API-UserInfo": b64url(token.encode()),
            }
            view = RequestView.from_headers(headers, query_string=f"k={key}")
            with pytest.raises(AuthError) as caught:
                await security.authenticate(view)
            seen.append(caught.value)
            assert API_KEY not in repr(view) and token not in repr(view)
    assert len(seen) == len(tokens) * 4
    for error in seen:
        # tracebacks never carry PyJWT's message: causes are suppressed
        assert error.__cause__ is None
        texts = [str(error), repr(error), str(error.to_json()), str(error.jsonrpc_body())]
        texts.append(str(error.headers()))
        texts += list(getattr(error, "challenges", []))
        for text in texts:
            for secret in secrets:
                assert secret not in text
    for secret in secrets:
        assert secret not in caplog.text
    assert "refused" in caplog.text  # failures are logged — by scheme and reason only
    for auth in security.authenticators.values():
        assert API_KEY not in repr(auth)


def test_importing_the_package_loads_no_jose_or_http_library() -> None:
    code = (
        "import sys, a2a_serverless.auth\n"
        "from a2a_serverless.auth import Security, RequestView\n"
        "loaded = [m for m in ('jwt', 'cryptography', 'httpx') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
