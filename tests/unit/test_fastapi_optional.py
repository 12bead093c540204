"""FastAPI is an extra: the core, the dev server's loader and both adapters' plain entry points
never import it (nor Starlette, where the platform does not): only a fresh interpreter can tell,
as the test environment has FastAPI installed and other tests import it."""

from __future__ import annotations

from tests.integration.test_no_pydantic import run_script

SCRIPT = """
import asyncio, json, sys
import a2a_serverless
from a2a_serverless import Settings, agent, create_app
from a2a_serverless.devserver import DevTarget

@agent(name="Echo", description="d")
def echo(text: str) -> str:
    return text

app = create_app(echo, Settings(store_url="memory://"))
DevTarget(None).load()  # the dev server's loader, on the example agent
asyncio.run(app.runtime.aclose())
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("fastapi", "starlette"))))
"""


def test_the_core_imports_neither_fastapi_nor_starlette() -> None:
    assert run_script(SCRIPT) == []
