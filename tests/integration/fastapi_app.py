"""A FastAPI app with its own route and an agent mounted under /agent (the FastAPI tests)."""

from __future__ import annotations

from fastapi import FastAPI

from a2a_serverless import agent
from a2a_serverless.fastapi import mount_agent


@agent(name="Echo", description="Says back what it is told.")
def echo(text: str) -> str:
    return text


api = FastAPI()


@api.get("/hello")
def hello() -> dict[str, str]:
    return {"hello": "world"}


mount_agent(api, echo, prefix="/agent")
