"""A user's main.py serving a FastAPI app with the runtime tests' agent mounted under /agent:

    functions-framework --target a2a_app --source functions_fastapi_main.py

Its turns go to the same Pub/Sub topic, so the deployment's worker function (functions_main.py,
the same agent) runs them.
"""

from a2a_serverless_gcp import http_function
from tests.gcp.runtime.functions_main import echo
from tests.support.fastapi_apps import greeting_app

api = greeting_app(echo)
a2a_app = http_function(echo, app=api, name="a2a_app")
