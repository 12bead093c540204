"""A reference, not an agent server: a bare FastAPI app on Lambda, wrapped in Mangum, answering
the probe's message/send and tasks/get at /agent/ from a dict (floor_stdlib's echo).

Next to the FastAPI row (handler_ours_fastapi.py) it tells what FastAPI itself costs (its
import, pydantic's, Starlette's, Mangum's cycle) from what the agent and the adapter add.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from floor_stdlib import _handle
from mangum import Mangum

api = FastAPI()


@api.get("/hello")
def hello() -> dict[str, str]:
    return {"hello": "world"}


@api.post("/agent/")
async def rpc(request: Request) -> JSONResponse:
    body: dict[str, Any] = await request.json()
    result = await _handle(body)
    return JSONResponse({"jsonrpc": "2.0", "id": body.get("id"), "result": result})


handler = Mangum(api, lifespan="off")
