"""A reference, not an agent server: the floor under a Firestore-backed GCP function's cold start.

    functions-framework --target a2a --source floor_firestore.py

functions-framework's ASGI HTTP function answering message/send and tasks/get from a dict (the
same answers as floor_stdlib), plus what any function keeping its tasks in Firestore pays at
start-up whatever it does: the import of google-cloud-firestore and one AsyncClient, made as
the store makes its clients (project and database of the store URL; the emulator found through
FIRESTORE_EMULATOR_HOST). It sends no request. The bench prints the GCP function's cold start
against this one.
"""

from __future__ import annotations

import os

import functions_framework.aio
from floor_stdlib import _handle
from google.cloud.firestore import AsyncClient
from starlette.requests import Request
from starlette.responses import JSONResponse

client = AsyncClient(project=os.environ["GOOGLE_CLOUD_PROJECT"], database="(default)")


@functions_framework.aio.http
async def a2a(request: Request) -> JSONResponse:
    call = await request.json()
    result = await _handle(call)
    return JSONResponse({"jsonrpc": "2.0", "id": call.get("id"), "result": result})
