"""Priming at import: the modules a function's first request would import, imported when the
function is built instead.

On Google Cloud the first request builds the Runtime (deployment.py, `Deployment.runtime`): the
store, the queue clients, the app. Their connections cannot be made earlier: functions-framework
builds the functions in gunicorn's master process, before it forks the worker that serves (a
gRPC channel opened before a fork is unusable after it), and the Firestore and Cloud Tasks
clients are asyncio clients bound to the loop that serves. What can move is the imports, which
are most of that first request's time (google-cloud-firestore alone takes about a quarter of a
second): they are fork-safe, shared by the forked worker, and paid while the instance starts,
when Cloud Run's startup CPU boost applies and before the instance takes traffic. An agent with
remote agents configured also has what its durable calls' callbacks import primed (the
resumer, PyJWT, the client and httpx: durable/deferred.py's CALLBACK_MODULES); one without them,
nothing of that.

Best effort, like the AWS adapter's priming: a module that fails to import is logged, and the
first request meets and reports the error. `A2A_PRIME=false` turns it off.
"""

from __future__ import annotations

import importlib
import logging

from a2a_serverless.config import Settings
from a2a_serverless.durable.deferred import CALLBACK_MODULES

from .config import GcpSettings

log = logging.getLogger("a2a_serverless_gcp.priming")

# What every first request imports: the Runtime, the app and the response budget (deployment.py
# imports them lazily).
ALWAYS = ("a2a_serverless.runtime", "a2a_serverless.asgi", "a2a_serverless.budget")
# What the store of a URL scheme imports (its adapter module and client library).
STORE_MODULES = {
    "firestore": ("a2a_serverless_gcp.firestore.store", "google.cloud.firestore"),
    "memory": ("a2a_serverless.store.memory",),
}


def modules_to_prime(
    settings: Settings, config: GcpSettings, *, remote_agents: bool = False
) -> list[str]:
    """The modules the first request of a function with these settings would import;
    `remote_agents`: the agent has some configured, and may receive its calls' callbacks (and
    its worker makes the calls and checks them): what they import too."""
    modules = list(ALWAYS)
    scheme = settings.store_url.partition("://")[0].lower()
    modules += STORE_MODULES.get(scheme, ())
    if config.pubsub_topic is not None:
        modules.append("google.cloud.pubsub_v1")
    if config.cloud_tasks_queue is not None:
        modules += ["google.cloud.tasks_v2", "google.auth"]
    if remote_agents:
        modules += CALLBACK_MODULES
    return modules


def prime(settings: Settings, config: GcpSettings, *, remote_agents: bool = False) -> None:
    """Import what the first request would (no connection, no client: see the docstring)."""
    for name in modules_to_prime(settings, config, remote_agents=remote_agents):
        try:
            importlib.import_module(name)
        except ImportError as error:
            log.warning("could not import %s ahead of the first request: %s", name, error)
