"""Ours on Lambda the way the peer is put there: `create_app(...)` wrapped in Mangum, nothing else.

The store is A2A_STORE_URL (memory://); the queue is the in-process default.
"""

from __future__ import annotations

from echo_ours import echo
from mangum import Mangum

from a2a_serverless import Settings, create_app

# Mangum buffers responses: no live SSE, as the AWS adapter's handler also declares.
app = create_app(echo, Settings.from_env(streaming=False))
handler = Mangum(app, lifespan="off")
