"""The OpenAPI 3.1 document of the HTTP+JSON/REST routes of both A2A versions (served at GET
/v1/openapi.json): 0.3's under `/v1/`, 1.0's without a prefix.

It is data: `openapi.json` beside this module, written at build time by scripts/openapi_gen.py
from the code that describes what `v03/rest.py` and `v03/convert.py`, and `v10/rest.py`
and the 1.0 codec's request objects, accept and answer (that script says how, and why the
schemas look as they do); tests/docs/test_openapi_data.py fails
when it is stale. What depends on the deployment — its limits, `DEPLOYMENT_LIMITS` — is a
placeholder there, filled in here from the settings. Security schemes are per deployment and
declared on the agent card, not here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..config import Settings

# The settings the document shows (in request schemas and their descriptions).
DEPLOYMENT_LIMITS = ("max_file_bytes", "max_message_file_bytes", "max_message_parts")
# Read from beside this module: the wheel and the Lambda zip ship it as package data.
DATA = Path(__file__).with_name("openapi.json")


def placeholder(name: str) -> str:
    """What openapi.json holds where the setting `name` goes."""
    return "{{" + name + "}}"


def document(settings: Settings) -> dict[str, Any]:
    """The OpenAPI document for a deployment with these settings (its limits are in it)."""
    text = DATA.read_text(encoding="utf-8")
    for name in DEPLOYMENT_LIMITS:
        value = str(int(getattr(settings, name)))
        # A whole JSON value ("maxItems": "{{…}}") becomes the number; in a text, its digits.
        text = text.replace(f'"{placeholder(name)}"', value).replace(placeholder(name), value)
    loaded: dict[str, Any] = json.loads(text)
    return loaded
