"""What the per-request checks of limits.py cost: `python -m tests.reliability.limits_cost`.

Times `parse_json` against the plain `json.loads` it replaces, and `check_send` on validated
params, for bodies from a typical message to a 1 MiB file, and prints microseconds per call.
(A measurement to read, not a test: timing assertions have no place in the suite.)
"""

from __future__ import annotations

import base64
import json
import timeit
from collections.abc import Callable
from typing import Any

from a2a_serverless.config import Settings
from a2a_serverless.limits import check_send, parse_json
from a2a_serverless.v03.jsonrpc_params import MessageSendParams, send_request_in

SETTINGS = Settings()


def request(parts: list[dict[str, Any]], **message: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": "7f9c2ba4-e88f-41f2-9c0b-1d6a8e2f0a11",
        "method": "message/send",
        "params": {
            "message": {
                "kind": "message",
                "role": "user",
                "messageId": "0d3c8f7e-6b1a-4c55-a2d2-9b8e7f6a5c41",
                "parts": parts,
                **message,
            },
            "configuration": {"blocking": True, "acceptedOutputModes": ["text/plain"]},
            "metadata": {"client": "bench", "trace": {"id": "abc", "sampled": True}},
        },
    }


TEXT = {"kind": "text", "text": "Plan a three-day trip to Lisbon in May, with a budget."}
BODIES: dict[str, bytes] = {
    "typical message (1 text part)": json.dumps(request([TEXT])).encode(),
    "emoji escaped (\\ud83d...)": json.dumps(
        request([{"kind": "text", "text": "hi 😀" * 20}])
    ).encode(),
    "100 parts (depth walk)": json.dumps(request([TEXT] * 100)).encode(),
    "1 MiB file": json.dumps(
        request(
            [
                {
                    "kind": "file",
                    "file": {"bytes": base64.b64encode(b"\x00" * (1 << 20)).decode()},
                }
            ]
        )
    ).encode(),
}


def per_call_us(function: Callable[[], Any]) -> float:
    timer = timeit.Timer(function)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=number)) / number * 1e6


def main() -> None:
    print(f"{'body':32} {'bytes':>9} {'json.loads':>11} {'parse_json':>11} {'check_send':>13}")
    for name, raw in BODIES.items():
        loads = per_call_us(lambda raw=raw: json.loads(raw))  # type: ignore[misc]
        strict = per_call_us(lambda raw=raw: parse_json(raw, SETTINGS.max_json_depth))  # type: ignore[misc]
        params = send_request_in(MessageSendParams.model_validate(json.loads(raw)["params"]))
        checks = per_call_us(lambda params=params: check_send(params, SETTINGS))  # type: ignore[misc]
        print(f"{name:32} {len(raw):>9} {loads:>9.1f}us {strict:>9.1f}us {checks:>11.2f}us")


if __name__ == "__main__":
    main()
