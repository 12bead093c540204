"""Shared pieces for turning existing request/response code into an agent.

The AWS adapter wraps Lambda handlers (`a2a_serverless_aws.wrap`), the GCP adapter
functions-framework functions (`a2a_serverless_gcp.wrap`); both need the same two translations:

- `message_payload(ctx)`: the A2A message as the one JSON value such code expects as its
  input. A single data part is that object; text that is a JSON object or array is parsed;
  other text is ``{"text": ...}``; mixed content is ``{"text": ..., "data": [...],
  "files": [...]}``.
- `result_parts(value)`: what the code returned, as the parts of one artifact: text stays text,
  JSON-able objects become a data part (a list becomes ``{"items": [...]}``, since a data part
  holds an object), bytes become a file part; None means no artifact.
- `http_result_parts(status, body, content_type)`: the same for an HTTP-style response; a 4xx or
  5xx status fails the task with the body as its message.

`wrapped_agent` makes the `Agent` of both adapters' wrap helpers: the card's fields as the user
gave them (`CardOptions`), else `Agent`'s defaults, but text and JSON as the modes.
"""

from __future__ import annotations

import base64
import inspect
import json
from collections.abc import Callable
from typing import Any

from .agent import Agent, CardOptions, card_fields
from .executor import AgentExecutor
from .models import Part
from .sentinel import Sentinel
from .turn import Context, Failed

# A wrapped handler takes and gives JSON as well as text.
WRAPPED_MODES = ("text/plain", "application/json")


def wrapped_agent(
    func: Callable[..., Any],
    executor: AgentExecutor,
    *,
    function_name: str,
    kind: str,
    name: str | None,
    description: str | None,
    time_budget_s: float | None,
    card: CardOptions,
    caller: str,
) -> Agent:
    """The Agent of a wrap helper (`caller`): named after the function, described by its
    docstring's first paragraph, else as "The <function_name> <kind>"."""
    doc = inspect.getdoc(func) or ""
    return Agent(
        name=name or function_name.replace("_", " ").title(),
        description=description or doc.split("\n\n")[0] or f"The {function_name} {kind}",
        executor=executor,
        time_budget_s=time_budget_s,
        **card_fields(
            {"input_modes": WRAPPED_MODES, "output_modes": WRAPPED_MODES, **card}, caller=caller
        ),
    )


def message_payload(ctx: Context) -> Any:
    text = ctx.text
    data = ctx.data
    files = [_file_json(f) for f in ctx.files]
    if data and not text and not files:
        return data[0] if len(data) == 1 else {"data": data}
    if text and not data and not files:
        parsed = _json_container(text)
        return parsed if parsed is not None else {"text": text}
    payload: dict[str, Any] = {}
    if text:
        payload["text"] = text
    if data:
        payload["data"] = data
    if files:
        payload["files"] = files
    return payload


def result_parts(value: Any) -> list[Part]:
    if value is None:
        return []
    if isinstance(value, str):
        return [Part(text=value)]
    if isinstance(value, bytes | bytearray):
        encoded = base64.b64encode(bytes(value)).decode()
        return [Part(raw=encoded, media_type="application/octet-stream")]
    if isinstance(value, dict):
        return [Part(data=_jsonable(value))]
    if isinstance(value, list | tuple):
        return [Part(data={"items": _jsonable(list(value))})]
    if isinstance(value, bool | int | float):
        return [Part(data={"value": value})]
    raise TypeError(f"cannot turn a {type(value).__name__} result into an artifact")


def http_result_parts(status: int, body: bytes | str, content_type: str | None) -> list[Part]:
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    if status >= 400:
        raise Failed(text.strip() or f"the wrapped function answered HTTP {status}")
    if not text:
        return []
    is_json = content_type is not None and "json" in content_type.split(";")[0]
    if is_json or content_type is None:
        parsed = _json_value(text)
        if parsed is not _NOT_JSON:
            return result_parts(parsed)
    if content_type is not None and not content_type.startswith("text/") and not is_json:
        raw = body if isinstance(body, bytes) else body.encode()
        mime = content_type.split(";")[0].strip()
        return [Part(raw=base64.b64encode(raw).decode(), media_type=mime)]
    return [Part(text=text)]


_NOT_JSON = Sentinel("not JSON")


def _json_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


def _json_container(text: str) -> Any:
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    value = _json_value(stripped)
    return None if value is _NOT_JSON else value


def _jsonable(value: Any) -> Any:
    # Round-trip through json so anything a handler returns that json cannot carry (a datetime,
    # a set) fails here, clearly, not later in a store or a client.
    return json.loads(json.dumps(value, default=_refuse))


def _refuse(value: Any) -> Any:
    raise TypeError(f"a {type(value).__name__} in the result is not JSON")


def _file_json(part: Part) -> dict[str, Any]:
    """A file part as the wrapped code has always read it: `bytes` (base64) or `uri`, with
    `mimeType` and `name` when given."""
    out: dict[str, Any] = {"bytes": part.raw} if part.raw is not None else {"uri": part.url}
    if part.media_type is not None:
        out["mimeType"] = part.media_type
    if part.filename is not None:
        out["name"] = part.filename
    return out
