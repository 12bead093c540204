"""Google Cloud Functions (gen2) entry points; the source bundle's main.py (see package.py).

    functions-framework --target a2a --source main.py      the A2A endpoint (card, JSON-RPC, REST, SSE){% if cookiecutter.fastapi == "yes" %}
                                                           in the FastAPI app ({{ cookiecutter.module_name }}/api.py){% endif %}
    functions-framework --target worker --source main.py   the worker: Pub/Sub and Cloud Tasks jobs

Both functions deploy from the same source with different entry points; each is built only when
functions-framework asks for its target, so each needs only its own settings.
"""

from a2a_serverless_gcp import entry_points

from {{ cookiecutter.module_name }}.agent import {{ cookiecutter.__agent }}
{% if cookiecutter.fastapi == "yes" %}
entry_points(__name__, {{ cookiecutter.__agent }}, app="{{ cookiecutter.module_name }}.api:api")
{%- else %}
entry_points(__name__, {{ cookiecutter.__agent }})
{%- endif %}
