"""Ours on Lambda serving a FastAPI app with the agent mounted under /agent, through the AWS
adapter's HTTP handler (`make_http_handler(echo, app=api)`): what a user who already has a
FastAPI app deploys. The probe's events go to /agent/ (BENCH_A2A_PATH).

The store is A2A_STORE_URL (memory://); the queue is the in-process one, as in handler_ours.py.
"""

from __future__ import annotations

from echo_ours import echo
from fastapi import FastAPI

from a2a_serverless import Settings
from a2a_serverless.fastapi import mount_agent
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_aws import make_http_handler

api = FastAPI()


@api.get("/hello")
def hello() -> dict[str, str]:
    return {"hello": "world"}


mount_agent(api, echo, prefix="/agent")
handler = make_http_handler(echo, Settings.from_env(), app=api, queue=InProcessQueue())
