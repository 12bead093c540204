"""What the interop suites that drive an official client in its own process share
(test_sdk1.py: a2a-sdk 1.x in .venv-a2a-sdk1; test_js_sdk.py: @a2a-js/sdk with node): the 1.0
wire both clients must produce, and a run's observations, read from the JSON the client script
prints, feature by feature.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from typing import Any

import pytest

from a2a_serverless.v03.jsonrpc import V10_METHOD_NAMES

# The JSON-RPC methods a 1.0 client sends for the task operations: 1.0's methods, the extended
# card aside (the interop agents have none).
V10_METHODS = set(V10_METHOD_NAMES - {"GetExtendedAgentCard"})
# What a 1.0 HTTP+JSON client sends for them (ids replaced by {id}); it subscribes with POST.
V10_REST_ROUTES = {
    ("POST", "/message:send"),
    ("POST", "/message:stream"),
    ("GET", "/tasks/{id}"),
    ("GET", "/tasks"),
    ("POST", "/tasks/{id}:cancel"),
    ("POST", "/tasks/{id}:subscribe"),
    ("POST", "/tasks/{id}/pushNotificationConfigs"),
    ("GET", "/tasks/{id}/pushNotificationConfigs"),
    ("GET", "/tasks/{id}/pushNotificationConfigs/{id}"),
    ("DELETE", "/tasks/{id}/pushNotificationConfigs/{id}"),
}


def route_of(path: str, *, tenant: str = "") -> str:
    """A request path as a route of V10_REST_ROUTES (its tenant, if any, taken off)."""
    path = path.removeprefix(tenant) if tenant else path
    path = re.sub(r"/tasks/[^/:]+", "/tasks/{id}", path)
    return re.sub(r"/pushNotificationConfigs/[^/]+", "/pushNotificationConfigs/{id}", path)


@dataclass
class ClientRun:
    """One run of a client script: its observations per feature, or why there are none."""

    # Who ran, for failure messages ("a2a-sdk 1.x"), and where its failures keep their trace.
    client: str
    trace_key: str
    results: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None
    logs: str = ""

    def read(self, process: subprocess.CompletedProcess[str], script: str) -> None:
        """Take the script's JSON output, or record why there is none."""
        if process.returncode != 0:
            self.problem = f"{script} exited {process.returncode}:\n{process.stderr}"
            return
        try:
            self.results = json.loads(process.stdout)
        except ValueError:
            self.problem = f"{script} printed no JSON:\n{process.stdout}\n{process.stderr}"

    def feature(self, name: str) -> dict[str, Any]:
        """The observations of one feature; fails the test if the run or the feature failed."""
        if self.problem:
            pytest.fail(self.problem, pytrace=False)
        result: dict[str, Any] = self.results[name]
        if "error" in result:
            pytest.fail(
                f"{self.client}, {name}: {result['error']}\n{result.get(self.trace_key, '')}"
                f"\n{self.logs}",
                pytrace=False,
            )
        return result
