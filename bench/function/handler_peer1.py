"""The 1.x peer on Lambda as users put it there today: its Starlette app wrapped in Mangum."""

from __future__ import annotations

from echo_peer1 import build_app
from mangum import Mangum

app = build_app()
handler = Mangum(app, lifespan="off")
