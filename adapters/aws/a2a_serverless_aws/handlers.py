"""A module's Lambda handlers, each made when Lambda's runtime first asks for it.

    # my_agent/aws_lambda.py: handlers "my_agent.aws_lambda.http", ".worker", ".dead_letters"
    from a2a_serverless_aws import entry_points
    from my_agent.agent import agent

    entry_points(__name__, agent)

Lambda's runtime looks the handler up by name at init, before the first invocation: only then is
that handler built, so a function builds only its own and reads only its own settings
(A2A_LAMBDA_TIMEOUT_S differs between them), and the other handlers' modules are not imported.
The GCP adapter's `entry_points` does the same for functions-framework's targets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a_serverless.lazyface import build_on_first_use, imported

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from a2a_serverless.agent import Agent


def entry_points(
    module: str,
    agent: Agent,
    *,
    app: Starlette | str | None = None,
    http: str = "http",
    worker: str = "worker",
    dead_letters: str = "dead_letters",
) -> None:
    """Give the module `module` (pass `__name__`) its three handlers, each made on first use:
    `http` (`make_http_handler`), `worker` (`make_worker_handler`) and `dead_letters`
    (`make_dead_letter_handler`). The names are what the functions' `handler` settings end
    with. `app` is the FastAPI (or Starlette) app holding the agent, if the HTTP function
    serves one, or its "package.module:attribute", imported when the HTTP handler is made;
    the worker imports it only when its first durable call names its callback, under the
    mount's prefix (so the other functions do not import FastAPI otherwise)."""

    def http_handler() -> object:
        from .lambda_http import make_http_handler

        return make_http_handler(agent, app=imported(app) if isinstance(app, str) else app)

    def worker_handler() -> object:
        from .lambda_worker import make_worker_handler

        return make_worker_handler(agent, app=app)

    def dead_letter_handler() -> object:
        from .lambda_worker import make_dead_letter_handler

        return make_dead_letter_handler(agent)

    build_on_first_use(
        module, {http: http_handler, worker: worker_handler, dead_letters: dead_letter_handler}
    )
