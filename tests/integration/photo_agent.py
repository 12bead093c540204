"""A photo agent and the checks of its answers, for the signed-URL tests of both adapters
(tests/aws/test_signed_urls.py, tests/gcp/test_signed_urls.py): a large file part, which goes
out as a signed URL when `content_signed_urls` is on, beside a small one, which never does."""

from __future__ import annotations

import base64
import os
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx

from a2a_serverless import Agent, Context, Settings, TaskUpdater, create_app
from a2a_serverless.models import Part, TaskState
from a2a_serverless.store.base import Store

# 60 KB of bytes: about 80 KB of base64, far over the 16 KB offload threshold.
PHOTO = os.urandom(60_000)
ICON = b"\x89PNG small"
TTL_S = 120
V10 = {"A2A-Version": "1.0"}

AppClient = tuple[httpx.AsyncClient, Any]
AppFactory = Callable[..., AbstractAsyncContextManager[AppClient]]


def app_factory(make_store: Callable[[], Store]) -> AppFactory:
    """Apps of the photo agent on a fresh store from `make_store` (another instance each
    time), with the settings given as keywords; `content_url_ttl_s` defaults to TTL_S."""

    @asynccontextmanager
    async def factory(**settings: Any) -> AsyncIterator[AppClient]:
        settings.setdefault("content_url_ttl_s", TTL_S)
        app = create_app(
            photos, Settings(store_url="memory://", dev_mode=True, **settings), store=make_store()
        )
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            try:
                yield client, app
            finally:
                await app.runtime.aclose()

    return factory


class PhotoExecutor:
    """A large file part (a photo) and a small one (an icon) in one artifact, then a status
    message, then completed."""

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        photo = Part(
            raw=base64.b64encode(PHOTO).decode(), media_type="image/png", filename="photo.png"
        )
        icon = Part(raw=base64.b64encode(ICON).decode(), media_type="image/png")
        await updater.add_artifact([photo, icon], name="pictures")
        await updater.update_status(TaskState.WORKING, "framing it")
        await updater.complete("done")


photos = Agent(name="Photos", description="Takes a photo.", executor=PhotoExecutor())


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def message_v03(**params: Any) -> dict[str, Any]:
    message = {
        "kind": "message",
        "role": "user",
        "messageId": str(uuid.uuid4()),
        "parts": [{"kind": "text", "text": "a photo, please"}],
    }
    return {"message": message, **params}


def message_v10(**params: Any) -> dict[str, Any]:
    message = {
        "messageId": str(uuid.uuid4()),
        "role": "ROLE_USER",
        "parts": [{"text": "a photo, please"}],
    }
    return {"message": message, **params}


async def call(client: httpx.AsyncClient, app: Any, body: dict[str, Any], **kw: Any) -> Any:
    response = await client.post("/", json=body, **kw)
    assert response.status_code == 200, response.text
    await app.runtime.queue.drain()
    return response


def fetched(url: str) -> httpx.Response:
    response = httpx.get(url, timeout=10)
    assert response.status_code == 200, response.text
    return response


def check_v03_photo(part: dict[str, Any]) -> str:
    """The 0.3 photo part is a FileWithUri with the same name and mimeType; its URL."""
    assert part["kind"] == "file"
    file = part["file"]
    assert "bytes" not in file
    assert file["name"] == "photo.png" and file["mimeType"] == "image/png"
    served = fetched(file["uri"])
    assert served.content == PHOTO
    assert served.headers["content-type"] == "image/png"
    return str(file["uri"])


def check_v10_photo(part: dict[str, Any]) -> str:
    assert "raw" not in part
    assert part["filename"] == "photo.png" and part["mediaType"] == "image/png"
    assert fetched(part["url"]).content == PHOTO
    return str(part["url"])


def check_v03_artifact(artifact: dict[str, Any]) -> None:
    photo, icon = artifact["parts"]
    check_v03_photo(photo)
    # The icon is under the threshold: inline, as ever.
    assert base64.b64decode(icon["file"]["bytes"]) == ICON
