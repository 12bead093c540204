"""A FastAPI app holding the test agent under /agent, for entry points started as processes
(`python -m a2a_serverless_aws.web_adapter tests.aws.runtime.fastapi_functions:api`). Its
lifespan's state reaches its own route, so a test sees that the server ran it."""

from __future__ import annotations

from fastapi import FastAPI

from a2a_serverless.fastapi import mount_agent
from tests.aws.runtime.functions import subject
from tests.support.fastapi_apps import greeting_app

api = greeting_app(subject)

# Two agents in one app: an entry point serving one refuses it.
two_agents = FastAPI()
mount_agent(two_agents, subject, prefix="/one", well_known=False)
mount_agent(two_agents, subject, prefix="/two", well_known=False)
# No agent at all.
no_agent = FastAPI()
