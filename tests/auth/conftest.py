"""Fixtures of the auth tests: real keys, real signed JWTs, and a real loopback HTTP server that
serves a JWKS and an OpenID discovery document (nothing leaves 127.0.0.1).

- `keys`: RSA (2048) and EC (P-256) key pairs, made once per session;
- `idp`: an `IdentityProvider` on a free port — `.set_jwks(...)`, `.set(path, status, doc)`,
  `.hits[path]` counts requests; `.url`, `.issuer`, `.jwks_url`, `.discovery_url`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from .support import IdentityProvider, Keys, make_keys


@pytest.fixture(scope="session")
def keys() -> Keys:
    return make_keys()


@pytest.fixture
async def idp() -> AsyncIterator[IdentityProvider]:
    server = IdentityProvider()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
