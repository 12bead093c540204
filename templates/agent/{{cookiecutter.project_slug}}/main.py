"""Google Cloud Functions (gen2) entry points; the source bundle's main.py (see package.py).

    functions-framework --target a2a --source main.py      the A2A endpoint (card, JSON-RPC, REST, SSE){% if cookiecutter.fastapi == "yes" %}
                                                           in the FastAPI app ({{ cookiecutter.module_name }}/api.py){% endif %}
    functions-framework --target worker --source main.py   the worker: Pub/Sub and Cloud Tasks jobs

Both functions deploy from the same source with different entry points; each is built only when
functions-framework asks for its target, so each needs only its own settings.
"""

from __future__ import annotations

from typing import Any

from {{ cookiecutter.module_name }}.agent import echo


def __getattr__(name: str) -> Any:
    from a2a_serverless_gcp import http_function, worker_function

    if name == "a2a":
{%- if cookiecutter.fastapi == "yes" %}
        from {{ cookiecutter.module_name }}.api import api

        function = http_function(echo, name="a2a", app=api)
{%- else %}
        function = http_function(echo, name="a2a")
{%- endif %}
    elif name == "worker":
        function = worker_function(echo, name="worker")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = function
    return function
