"""An agent whose answer holds file links of several schemes, for the inspector's link test."""

from __future__ import annotations

from typing import Any

from a2a_serverless import agent
from a2a_serverless.models import Part

URIS = {
    "script.pdf": "javascript:document.title='owned'",
    "mixed-case.pdf": " JaVaScRiPt:document.title='owned'",
    "data.html": "data:text/html,<script>document.title='owned'</script>",
    "report.pdf": "https://files.example/report.pdf",
}


@agent(name="Links", description="Answers with files of several URI schemes.")
def links(text: str) -> list[Any]:
    return [Part(text="files:")] + [Part(url=uri, filename=name) for name, uri in URIS.items()]
