"""Each protocol version's codec names the other's JSON-RPC methods (for its hint to a client
that sent one without the right `A2A-Version`) without importing it: the lists stay true."""

from __future__ import annotations

from a2a_serverless.v03 import jsonrpc as v03_jsonrpc
from a2a_serverless.v03.methods import METHODS as V03_METHODS
from a2a_serverless.v10 import jsonrpc as v10_jsonrpc
from a2a_serverless.v10.methods import METHODS as V10_METHODS


def test_each_version_names_the_others_methods() -> None:
    assert set(V10_METHODS) == v03_jsonrpc.V10_METHOD_NAMES
    assert set(V03_METHODS) == v10_jsonrpc.V03_METHOD_NAMES
