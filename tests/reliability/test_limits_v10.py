"""The message limits over A2A 1.0, both bindings (test_limits.py holds 0.3's): a message with
too many parts, a file over `max_file_bytes`, files over `max_message_file_bytes`, a first
message over `max_task_bytes`. Each is -32602 (HTTP 400, or 413 for bytes) before anything is
stored, its ErrorInfo naming the limit, the setting, the maximum and the figure."""

from __future__ import annotations

import base64
import itertools
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.reliability.harness import fuzz_agent
from tests.reliability.test_limits import SMALL, stored_tasks

BINDINGS = ["jsonrpc", "rest"]
V10 = {"A2A-Version": "1.0"}
_ids = itertools.count(1)


@pytest.fixture
async def client(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(fuzz_agent, **SMALL, max_task_bytes=4000) as (client, _app):
        yield client


def text(value: str = "hi") -> dict[str, Any]:
    return {"text": value}


def file(size: int) -> dict[str, Any]:
    return {"raw": base64.b64encode(b"x" * size).decode(), "mediaType": "application/octet-stream"}


async def send(client: httpx.AsyncClient, binding: str, parts: list[dict[str, Any]]) -> Any:
    message = {"messageId": f"v10-lim-{next(_ids)}", "role": "ROLE_USER", "parts": parts}
    params = {"message": message, "configuration": {"returnImmediately": True}}
    if binding == "jsonrpc":
        body = {"jsonrpc": "2.0", "id": 3, "method": "SendMessage", "params": params}
        return await client.post("/", json=body, headers=V10)
    return await client.post("/message:send", json=params, headers=V10)


def refused(response: httpx.Response, binding: str, status: int) -> dict[str, str]:
    """The ErrorInfo metadata of a limit's refusal, its code and status checked."""
    if binding == "jsonrpc":
        assert response.status_code == 200, response.text
        error = response.json()["error"]
        assert error["code"] == -32602, error
        details = error["data"]
    else:
        assert response.status_code == status, response.text
        error = response.json()["error"]
        assert error["status"] == "INVALID_ARGUMENT", error
        details = error["details"]
    (info,) = [d for d in details if d.get("reason") == "INVALID_PARAMS"]
    metadata: dict[str, str] = info["metadata"]
    assert metadata["limit"] in error["message"] or metadata["max"] in error["message"], error
    return metadata


def named(metadata: dict[str, str], limit: str, maximum: int, actual: int) -> None:
    assert metadata == {
        "limit": limit,
        "setting": f"A2A_{limit.upper()}",
        "max": str(maximum),
        "actual": str(actual),
    }


@pytest.mark.parametrize("binding", BINDINGS)
async def test_parts_per_message(client: httpx.AsyncClient, binding: str) -> None:
    accepted = await send(client, binding, [text()] * 5)
    assert accepted.status_code == 200 and "error" not in accepted.json(), accepted.text
    named(
        refused(await send(client, binding, [text()] * 6), binding, 400), "max_message_parts", 5, 6
    )
    assert await stored_tasks(client) == 1


@pytest.mark.parametrize("binding", BINDINGS)
async def test_bytes_per_file(client: httpx.AsyncClient, binding: str) -> None:
    accepted = await send(client, binding, [file(1000)])
    assert accepted.status_code == 200 and "error" not in accepted.json(), accepted.text
    metadata = refused(await send(client, binding, [text(), file(1001)]), binding, 413)
    named(metadata, "max_file_bytes", 1000, 1001)
    assert await stored_tasks(client) == 1


@pytest.mark.parametrize("binding", BINDINGS)
async def test_file_bytes_per_message(client: httpx.AsyncClient, binding: str) -> None:
    metadata = refused(await send(client, binding, [file(750), file(751)]), binding, 413)
    named(metadata, "max_message_file_bytes", 1500, 1501)
    assert await stored_tasks(client) == 0


@pytest.mark.parametrize("binding", BINDINGS)
async def test_a_first_message_over_the_task_bound(client: httpx.AsyncClient, binding: str) -> None:
    metadata = refused(await send(client, binding, [text("t" * 5000)]), binding, 413)
    assert (metadata["limit"], metadata["max"]) == ("max_task_bytes", "4000")
    assert int(metadata["actual"]) > 4000
    assert await stored_tasks(client) == 0
