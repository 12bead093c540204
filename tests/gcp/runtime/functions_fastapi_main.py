"""A user's main.py serving a FastAPI app with the runtime tests' agent mounted under /agent:

    functions-framework --target a2a_app --source functions_fastapi_main.py

Its turns go to the same Pub/Sub topic, so the deployment's worker function (functions_main.py,
the same agent) runs them.
"""

import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI, Request

from a2a_serverless.fastapi import mount_agent
from a2a_serverless_gcp import http_function
from tests.gcp.runtime.functions_main import echo


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, str]]:
    yield {"greeting": "hello from the lifespan"}


api = FastAPI(lifespan=lifespan)


@api.get("/hello")
def hello(request: Request) -> dict[str, str]:
    return {"hello": request.state.greeting}


mount_agent(api, echo, prefix="/agent")
a2a_app = http_function(echo, app=api, name="a2a_app")
