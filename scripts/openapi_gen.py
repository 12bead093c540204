"""Write a2a_serverless/rest/openapi.json, the OpenAPI 3.1 document of the HTTP+JSON/REST routes
of both A2A versions that GET /v1/openapi.json serves, from the code, at build time (the server
only reads it).

    .venv/bin/python scripts/openapi_gen.py          # rewrite a2a_serverless/rest/openapi.json
    .venv/bin/python scripts/openapi_gen.py --check  # exit 1 if it is out of date

What a deployment's settings decide (its limits: `a2a_serverless.rest.openapi.DEPLOYMENT_LIMITS`)
is written as placeholders, which `a2a_serverless.rest.openapi.document(settings)` fills in.
tests/docs/test_openapi_data.py runs the check, and checks that the filled-in document is
`build(Limits.of(settings))` for other settings too.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from a2a_serverless.config import Settings
from a2a_serverless.limits import MAX_INT64
from a2a_serverless.rest.openapi import DEPLOYMENT_LIMITS, placeholder
from a2a_serverless.routepaths import V10_PATHS
from a2a_serverless.v03.card import PROTOCOL_VERSION
from a2a_serverless.v03.models import PUSH_CONFIG_COLLECTION, ROLES, STATES
from a2a_serverless.v10.methods import METHODS as V10_METHODS
from a2a_serverless.v10.models import ROLES as V10_ROLES
from a2a_serverless.v10.models import STATES as V10_STATES
from a2a_serverless.v10.models import ProtoJSON
from a2a_serverless.v10.rest import ROUTES as V10_ROUTES

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "a2a_serverless" / "rest" / "openapi.json"

JSON = dict[str, Any]

DESCRIPTION = """\
An OpenAPI 3.1 document of the HTTP+JSON/REST routes (served at GET /v1/openapi.json) of both
A2A versions this server speaks:

- A2A 0.3's, under `/v1/` (what `v03/rest.py` and `v03/convert.py` accept and answer);
  their components have plain names (`Task`, `SendMessageRequest`);
- A2A 1.0's, without a prefix (what `v10/rest.py` routes to `v10/methods.py`: ProtoJSON,
  camelCase, enums by name such as `TASK_STATE_WORKING`, errors as `google.rpc.Status`); every
  request says `A2A-Version: 1.0`, and each route is also served under one leading `/{tenant}/`
  segment (not listed); their components are named `v10.*`, requests `v10.request.*` (the
  1.0 codec's request objects).

It is close enough for a schema-driven fuzzer (schemathesis, tests/reliability) to check both
directions: every request the schemas call valid is accepted (2xx, or 400/404/409 for tasks
that do not exist or cannot change state), every request they call invalid is refused with a
4xx, and every answer matches its response schema. So:

- request schemas say `null` is allowed wherever proto3 JSON reads it as "left out", integers
  may be JSON strings of digits, and unknown fields are allowed (they are ignored);
- response schemas are closed (`additionalProperties: false`): we write nothing else;
- each field may also be sent under its proto field name (`context_id` for `contextId`, and
  a2a.proto's `parts` for `content`); those aliases are described but not listed, so that a
  generator never sends both names of one field (refused, as protobuf refuses it);
- what depends on state or on another part of the request is said in descriptions, not in
  schemas: a `name`/`parent` in a body must name the task of the URL, `pageToken` must come from
  a previous page, webhook URLs must pass the SSRF guard (https, public addresses),
  `lastUpdatedAfter` and `lastUpdatedTime` may not be given together.

Security schemes are per deployment and declared on the agent card; every operation may answer
401/403 (and 503 when the keys that check credentials cannot be fetched).
"""


@dataclass(frozen=True)
class Limits:
    """The settings the document shows: numbers, or the placeholders the server fills in."""

    max_file_bytes: int | str
    max_message_file_bytes: int | str
    max_message_parts: int | str

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        return cls(**{name: getattr(settings, name) for name in DEPLOYMENT_LIMITS})

    @classmethod
    def placeholders(cls) -> Limits:
        return cls(**{name: placeholder(name) for name in DEPLOYMENT_LIMITS})


# 0.3's proto names of the states, and ours, from the 0.3 codec's table.
_STATES = list(STATES.values())
_OUR_STATES = [state.value for state in STATES]
STRING: JSON = {"type": "string"}
OBJECT: JSON = {"type": "object"}


def _ref(name: str) -> JSON:
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(schema: JSON) -> JSON:
    if isinstance(schema.get("type"), str):
        return {**schema, "type": [schema["type"], "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _task_name(*, config: bool = False) -> JSON:
    """A resource name in a request body: `tasks/{id}` (`config`: or
    `tasks/{id}/pushNotificationConfigs/{configId}`), empty or null for none. Its shape is the
    schema; that the task is the URL's is said in words (it depends on the request's path)."""
    tail = f"(/{PUSH_CONFIG_COLLECTION}/[^/]+)?" if config else ""
    return {
        "type": ["string", "null"],
        "pattern": f"^(tasks/[^/]+{tail})?$",
        "description": "Must name the task of the URL, if given.",
    }


def _strings() -> JSON:
    return {"type": "array", "items": STRING}


def _closed(required: list[str], properties: JSON, **extra: Any) -> JSON:
    """A response object: exactly these properties, the required ones always there."""
    schema: JSON = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return {**schema, **extra}


# A request field: its json name -> (its proto field name, if that differs; its schema).
Fields = dict[str, tuple[str | None, JSON]]


def _input(fields: Fields, required: tuple[str, ...] = (), **extra: Any) -> JSON:
    """A request object: each field by its json name or its proto field name, never both."""
    properties: JSON = {}
    dependent: JSON = {}
    for name, (alias, schema) in fields.items():
        properties[name] = schema
        if alias is not None:
            properties[alias] = schema
            dependent[name] = {"not": {"required": [alias]}}
    result: JSON = {"type": "object", "properties": properties, **extra}
    if dependent:
        result["dependentSchemas"] = dependent
    plain = [name for name in required if fields[name][0] is None]
    if plain:
        result["required"] = plain
    either = [
        {"anyOf": [{"required": [name]}, {"required": [fields[name][0]]}]}
        for name in required
        if fields[name][0] is not None
    ]
    if either:
        result["allOf"] = either
    return result


def _one_of_fields(branches: Fields, common: Fields, **extra: Any) -> JSON:
    """A request object holding exactly one of `branches` (the others absent or null)."""
    one_of = []
    for key, (alias, schema) in branches.items():
        names = [key] if alias is None else [key, alias]
        present = [{"required": [name], "properties": {name: schema}} for name in names]
        absent = {
            name: {"type": "null"}
            for other, (other_alias, _) in branches.items()
            if other != key
            for name in ([other] if other_alias is None else [other, other_alias])
        }
        one_of.append({"anyOf": present, "properties": absent})
    everything: Fields = {name: (alias, {}) for name, (alias, _) in branches.items()}
    result = _input({**everything, **common}, **extra)
    result["oneOf"] = one_of
    return result


def _int_like(minimum: int) -> JSON:
    """A proto int field in a request body: a JSON integer or a string of ASCII digits."""
    text = "^([0-9]{1,20}|-0{1,19})$" if minimum == 0 else "^-?[0-9]{1,20}$"
    return {
        "anyOf": [
            {"type": "integer", "minimum": minimum},
            {"type": "string", "pattern": text},
            {"type": "null"},
        ]
    }


# --- responses (what v03/convert.py's *_out write) -----------------------------------------------


def _stream_event(stream_response: JSON, error: JSON) -> JSON:
    """One server-sent event of a stream whose `data` is `stream_response`, or `error`."""
    return {
        "description": "One server-sent event (OpenAPI 3.1: `schema` describes each event): "
        "`id` is the task's event log position and `data` a StreamResponse; an error after "
        "the stream began is one `event: error` whose data is the error body.",
        "oneOf": [
            {
                "type": "object",
                "required": ["id", "data"],
                "properties": {
                    "event": {"const": "message"},
                    "id": {"type": "string", "pattern": "^[0-9]+$"},
                    "data": {
                        "type": "string",
                        "contentMediaType": "application/json",
                        "contentSchema": stream_response,
                    },
                },
            },
            {
                "type": "object",
                "required": ["event", "data"],
                "properties": {
                    "event": {"const": "error"},
                    "data": {
                        "type": "string",
                        "contentMediaType": "application/json",
                        "contentSchema": error,
                    },
                },
            },
        ],
    }


def _response_schemas() -> JSON:
    metadata = {"type": "object", "description": "google.protobuf.Struct"}
    file_branches = {
        "fileWithUri": STRING,
        "fileWithBytes": {
            "type": "string",
            "contentEncoding": "base64",
            "description": "base64 of the UTF-8 of our `file.bytes` text (itself base64), as "
            "the a2a-sdk 0.3 writes it",
        },
    }
    file = {
        "type": "object",
        "properties": {**file_branches, "mimeType": STRING, "name": STRING},
        "additionalProperties": False,
        "oneOf": [{"required": [key]} for key in file_branches],
    }
    return {
        "Part": {
            "oneOf": [
                _closed(["text"], {"text": STRING, "metadata": metadata}),
                _closed(["file"], {"file": _ref("FilePart"), "metadata": metadata}),
                _closed(["data"], {"data": _ref("DataPart"), "metadata": metadata}),
            ]
        },
        "FilePart": file,
        "DataPart": _closed(["data"], {"data": OBJECT}),
        "Message": _closed(
            ["messageId", "role", "content"],
            {
                "messageId": STRING,
                "contextId": STRING,
                "taskId": STRING,
                "role": {"enum": list(ROLES.values())},
                "content": {"type": "array", "items": _ref("Part")},
                "metadata": metadata,
                "extensions": _strings(),
            },
        ),
        "TaskStatus": _closed(
            ["state"],
            {
                "state": {"enum": _STATES},
                "message": _ref("Message"),
                "timestamp": {"type": "string", "format": "date-time"},
            },
        ),
        "Artifact": _closed(
            ["artifactId", "parts"],
            {
                "artifactId": STRING,
                "name": STRING,
                "description": STRING,
                "parts": {"type": "array", "items": _ref("Part")},
                "metadata": metadata,
                "extensions": _strings(),
            },
        ),
        "Task": _closed(
            ["id", "contextId", "status"],
            {
                "id": STRING,
                "contextId": STRING,
                "status": _ref("TaskStatus"),
                "artifacts": {"type": "array", "items": _ref("Artifact")},
                "history": {"type": "array", "items": _ref("Message")},
                "metadata": metadata,
            },
        ),
        "TaskStatusUpdateEvent": _closed(
            ["taskId", "contextId", "status", "final"],
            {
                "taskId": STRING,
                "contextId": STRING,
                "status": _ref("TaskStatus"),
                "final": {"type": "boolean"},
                "metadata": metadata,
            },
        ),
        "TaskArtifactUpdateEvent": _closed(
            ["taskId", "contextId", "artifact"],
            {
                "taskId": STRING,
                "contextId": STRING,
                "artifact": _ref("Artifact"),
                "append": {"type": "boolean"},
                "lastChunk": {"type": "boolean"},
                "metadata": metadata,
            },
        ),
        "StreamResponse": {
            "oneOf": [
                _closed(["task"], {"task": _ref("Task")}),
                _closed(["message"], {"message": _ref("Message")}),
                _closed(["statusUpdate"], {"statusUpdate": _ref("TaskStatusUpdateEvent")}),
                _closed(["artifactUpdate"], {"artifactUpdate": _ref("TaskArtifactUpdateEvent")}),
            ]
        },
        "StreamEvent": _stream_event(_ref("StreamResponse"), _ref("Error")),
        "SendMessageResponse": {
            "oneOf": [
                _closed(["task"], {"task": _ref("Task")}),
                _closed(["message"], {"message": _ref("Message")}),
            ]
        },
        "ListTasksResponse": _closed(
            ["tasks", "nextPageToken", "pageSize", "totalSize"],
            {
                "tasks": {"type": "array", "items": _ref("Task")},
                "nextPageToken": STRING,
                "pageSize": {"type": "integer"},
                "totalSize": {"type": "integer"},
            },
        ),
        "AuthenticationInfo": _closed(["schemes"], {"schemes": _strings(), "credentials": STRING}),
        "PushNotificationConfig": _closed(
            ["url"],
            {
                "id": STRING,
                "url": STRING,
                "token": STRING,
                "authentication": _ref("AuthenticationInfo"),
            },
        ),
        "TaskPushNotificationConfig": _closed(
            ["name", "pushNotificationConfig"],
            {
                "name": {
                    "type": "string",
                    "pattern": "^tasks/[^/]+(/pushNotificationConfigs/[^/]+)?$",
                },
                "pushNotificationConfig": _ref("PushNotificationConfig"),
            },
        ),
        "ListTaskPushNotificationConfigResponse": _closed(
            ["configs"], {"configs": {"type": "array", "items": _ref("TaskPushNotificationConfig")}}
        ),
        "AgentCard": {
            "type": "object",
            "description": "The agent card in the JSON-RPC form (what the a2a-sdk 0.3 reads "
            "here), with the skills this caller may see",
            "required": [
                "name",
                "description",
                "url",
                "version",
                "capabilities",
                "defaultInputModes",
                "defaultOutputModes",
                "skills",
            ],
        },
        "Empty": _closed([], {}),
        "Error": _closed(
            ["error"],
            {
                "error": _closed(
                    ["code", "status", "message"],
                    {
                        "code": {
                            "type": "integer",
                            "description": "the A2A / JSON-RPC error code, as over JSON-RPC",
                        },
                        "status": {"type": "string", "description": "the HTTP reason phrase"},
                        "message": STRING,
                        "data": {"description": "as over JSON-RPC; left out when there is none"},
                    },
                )
            },
        ),
    }


# --- requests (what v03/models.py's Structs and v03/rest.py read) ----------------------------


def _request_schemas(limits: Limits) -> JSON:
    metadata = _nullable({"type": "object", "description": "google.protobuf.Struct"})
    strings = _nullable(_strings())
    optional = _nullable(STRING)
    return {
        "PartInput": _one_of_fields(
            {
                "text": (None, STRING),
                "file": (None, _ref("FilePartInput")),
                "data": (None, _ref("DataPartInput")),
            },
            {"metadata": (None, metadata)},
            description="Exactly one of text, file or data.",
        ),
        "FilePartInput": _one_of_fields(
            {
                "fileWithUri": ("file_with_uri", STRING),
                "fileWithBytes": (
                    "file_with_bytes",
                    {
                        "type": "string",
                        "contentEncoding": "base64",
                        "description": "proto bytes (base64, standard or URL-safe, padding "
                        "optional) of the UTF-8 of the file's base64 text: the a2a-sdk 0.3 "
                        "double encoding. At most max_file_bytes per file and "
                        f"max_message_file_bytes per message ({limits.max_file_bytes} and "
                        f"{limits.max_message_file_bytes} here, counted decoded): 413 beyond.",
                    },
                ),
            },
            {"mimeType": ("mime_type", optional), "name": (None, optional)},
            description="Exactly one of fileWithUri or fileWithBytes. The media type must be "
            "one the agent accepts (415 otherwise).",
        ),
        "DataPartInput": _input(
            {"data": (None, _nullable(OBJECT))},
            description="The DataPart message wrapping its Struct (`data` left out: {}).",
        ),
        "MessageInput": _input(
            {
                "messageId": ("message_id", STRING),
                "contextId": ("context_id", optional),
                "taskId": ("task_id", optional),
                "role": (
                    None,
                    {
                        "description": "ROLE_USER (the name, or the number 1): clients send "
                        "user messages",
                        "anyOf": [
                            {"const": "ROLE_USER"},
                            {"const": 1},
                            {"type": "string", "pattern": "^0{0,8}1$"},
                        ],
                    },
                ),
                # a2a.proto calls it `parts`; the a2a-sdk 0.3's proto, `content`.
                "content": (
                    "parts",
                    {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": limits.max_message_parts,
                        "items": _ref("PartInput"),
                        "description": "At most max_message_parts "
                        f"({limits.max_message_parts}) parts.",
                    },
                ),
                "metadata": (None, metadata),
                "extensions": (None, strings),
                "referenceTaskIds": ("reference_task_ids", strings),
            },
            ("messageId", "role", "content"),
            description="A user message. A taskId continues that task (404 if there is "
            "none; 400 unless it waits for input).",
        ),
        "AuthenticationInfoInput": _input(
            {"schemes": (None, strings), "credentials": (None, _nullable(_header_value()))}
        ),
        "PushNotificationConfigInput": _input(
            {
                "id": (None, _nullable({"type": "string", "pattern": "^[^/]*$"})),
                "url": (
                    None,
                    {
                        "type": "string",
                        "format": "uri",
                        "description": "Checked by the SSRF guard: https, a host resolving "
                        "only to public addresses, no credentials in the URL (400 otherwise).",
                    },
                ),
                "token": (None, _nullable(_header_value())),
                "authentication": (None, _nullable(_ref("AuthenticationInfoInput"))),
            },
            ("url",),
        ),
        "SendMessageConfigurationInput": _input(
            {
                "acceptedOutputModes": ("accepted_output_modes", strings),
                "pushNotification": (
                    "push_notification",
                    _nullable(_ref("PushNotificationConfigInput")),
                ),
                "historyLength": ("history_length", _int_like(0)),
                "blocking": (None, _nullable({"type": "boolean"})),
            },
            description="`blocking` left out is false; `historyLength` 0 or left out is the "
            "whole history.",
        ),
        "SendMessageRequest": _input(
            {
                "message": ("request", _ref("MessageInput")),
                "configuration": (None, _nullable(_ref("SendMessageConfigurationInput"))),
                "metadata": (None, metadata),
            },
            ("message",),
        ),
        "TaskPushNotificationConfigInput": _input(
            {
                "name": (None, _task_name(config=True)),
                "pushNotificationConfig": (
                    "push_notification_config",
                    _ref("PushNotificationConfigInput"),
                ),
            },
            ("pushNotificationConfig",),
            description="A bare TaskPushNotificationConfig. A `name`, if given, must name the "
            "task of the URL.",
            # Any of these makes the body the SDK's CreateTaskPushNotificationConfigRequest.
            **{
                "not": {
                    "anyOf": [
                        {"required": [key]} for key in ("config", "parent", "configId", "config_id")
                    ]
                }
            },
        ),
        "CreateTaskPushNotificationConfigRequest": _input(
            {
                "configId": ("config_id", _nullable({"type": "string", "pattern": "^[^/]*$"})),
                "parent": (None, _task_name()),
                "config": (None, _ref("TaskPushNotificationConfigInput")),
            },
            ("config",),
            description="What the a2a-sdk 0.3 sends. A `parent`, if given, must be the task "
            "of the URL; the config's id is pushNotificationConfig.id, else configId.",
        ),
    }


def _header_value() -> JSON:
    return {
        "type": "string",
        "pattern": "^[ -~]*$",
        "description": "Printable ASCII: it is sent as an HTTP header value.",
    }


# --- operations ----------------------------------------------------------------------------------


def _json(schema: JSON) -> JSON:
    return {"application/json": {"schema": schema}}


def _responses(ok: JSON | None, *errors: int, stream: bool = False) -> JSON:
    reasons = {
        400: "invalid request (a refusal's error.data names the field or the limit)",
        401: "missing or bad credentials (the deployment's schemes, see the agent card)",
        403: "the caller lacks a scope",
        404: "no such task (or route)",
        405: "the id names another route (it ends in :cancel or :subscribe), which has no GET",
        409: "the task cannot be canceled, the messageId was used for another message, or the "
        "task has a config for that URL already or as many configs as it may have",
        413: "the body or a file is over a limit",
        415: "the body is not JSON, or a part's media type is not one the agent accepts",
        503: "credentials cannot be checked right now",
    }
    responses: JSON = {}
    if stream:
        responses["200"] = {
            "description": "Server-sent events: the Task first (unless Last-Event-ID), then its "
            "events until the task is final, waits for input, or the time budget ends.",
            "content": {"text/event-stream": {"schema": _ref("StreamEvent")}},
        }
    elif ok is not None:
        responses["200"] = {"description": "OK", "content": _json(ok)}
    for status in sorted({*errors, 401, 403, 503}):
        responses[str(status)] = {"description": reasons[status], "content": _json(_ref("Error"))}
    return responses


def _task_id(*, plain: bool = False) -> JSON:
    schema: JSON = {"type": "string", "minLength": 1, "pattern": "^[^/]+$"}
    if plain:
        # /v1/tasks/{id}: an id ending in ":cancel" or ":subscribe" would name those routes.
        schema["not"] = {"pattern": ":(cancel|subscribe)$"}
    return {"name": "id", "in": "path", "required": True, "schema": schema}


def _query(name: str, schema: JSON, description: str) -> JSON:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": schema,
        "description": description,
    }


_BOOLEAN_TEXT: JSON = {"type": "string", "enum": ["true", "false", "True", "False", "1", "0"]}


def _operations() -> JSON:
    send_body = {"required": True, "content": _json(_ref("SendMessageRequest"))}
    optional_body = {
        "required": False,
        "description": "Optional. A `name`, if given, must be tasks/{id} of the URL.",
        "content": _json(_input({"name": (None, _task_name())})),
    }
    # A cancel changes state: its body, even empty, must be typed JSON (no cross-site cancel
    # without a CORS preflight), so the document asks for one; `{}` will do.
    cancel_body = {
        **optional_body,
        "required": True,
        "description": "A JSON object, `{}` will do (an empty body must still be sent as "
        "application/json). A `name`, if given, must be tasks/{id} of the URL.",
    }
    history = _query(
        "historyLength",
        {"type": "integer", "minimum": 0, "maximum": 10**20 - 1},
        "How many of the latest messages to include (0: none).",
    )
    return {
        "/v1/message:send": {
            "post": {
                "operationId": "sendMessage",
                "summary": "Send a message (creates or continues a task)",
                "requestBody": send_body,
                "responses": _responses(_ref("SendMessageResponse"), 400, 404, 409, 413, 415),
            }
        },
        "/v1/message:stream": {
            "post": {
                "operationId": "streamMessage",
                "summary": "Send a message and stream the task's events",
                "description": "Last-Event-ID resumes after that event.",
                "requestBody": send_body,
                "responses": _responses(None, 400, 404, 409, 413, 415, stream=True),
            }
        },
        "/v1/tasks": {
            "get": {
                "operationId": "listTasks",
                "summary": "List the caller's tasks, newest update first",
                "description": "Query parameters may also be given by their proto field names "
                "(context_id, page_size, ...). lastUpdatedAfter and lastUpdatedTime may not be "
                "given together (400).",
                "parameters": [
                    _query("contextId", STRING, "Only this context (404 if it has no tasks)."),
                    _query(
                        "status",
                        {
                            "anyOf": [
                                {"type": "string", "enum": _STATES + _OUR_STATES},
                                {"type": "string", "pattern": "^0{0,8}[0-8]$"},
                            ]
                        },
                        "Only tasks in this state: the proto enum name or number, or the "
                        "JSON-RPC name; TASK_STATE_UNSPECIFIED (0) means any.",
                    ),
                    _query("pageSize", {"type": "integer", "minimum": 1, "maximum": 100}, ""),
                    _query("pageToken", STRING, "The nextPageToken of the previous page."),
                    history,
                    _query(
                        "lastUpdatedAfter",
                        {"type": "integer", "minimum": 0, "maximum": MAX_INT64},
                        "Milliseconds since the epoch.",
                    ),
                    _query(
                        "lastUpdatedTime",
                        {"type": "string", "format": "date-time"},
                        "The same as an RFC 3339 date-time; before the epoch filters nothing.",
                    ),
                    _query("includeArtifacts", _BOOLEAN_TEXT, ""),
                ],
                "responses": _responses(_ref("ListTasksResponse"), 400, 404),
            }
        },
        "/v1/tasks/{id}": {
            "get": {
                "operationId": "getTask",
                "parameters": [_task_id(plain=True), history],
                "responses": _responses(_ref("Task"), 400, 404, 405),
            }
        },
        "/v1/tasks/{id}:cancel": {
            "post": {
                "operationId": "cancelTask",
                "parameters": [_task_id()],
                "requestBody": cancel_body,
                "responses": _responses(_ref("Task"), 400, 404, 409, 413, 415),
            }
        },
        "/v1/tasks/{id}:subscribe": {
            operation: {
                "operationId": f"subscribe{'Post' if operation == 'post' else ''}",
                "summary": "Stream a task's events from its log (Last-Event-ID resumes)",
                "parameters": [_task_id()],
                **({"requestBody": optional_body} if operation == "post" else {}),
                "responses": _responses(
                    None, 400, 404, *((413, 415) if operation == "post" else ()), stream=True
                ),
            }
            for operation in ("get", "post")
        },
        "/v1/tasks/{id}/pushNotificationConfigs": {
            "post": {
                "operationId": "setPushNotificationConfig",
                "parameters": [
                    _task_id(),
                    _query(
                        "configId",
                        {"type": "string", "pattern": "^[^/]*$"},
                        "The config's id when the body gives none.",
                    ),
                ],
                "requestBody": {
                    "required": True,
                    "content": _json(
                        {
                            "anyOf": [
                                _ref("CreateTaskPushNotificationConfigRequest"),
                                _ref("TaskPushNotificationConfigInput"),
                            ]
                        }
                    ),
                },
                "responses": _responses(
                    _ref("TaskPushNotificationConfig"), 400, 404, 409, 413, 415
                ),
            },
            "get": {
                "operationId": "listPushNotificationConfigs",
                "parameters": [_task_id()],
                "responses": _responses(_ref("ListTaskPushNotificationConfigResponse"), 400, 404),
            },
        },
        "/v1/tasks/{id}/pushNotificationConfigs/{configId}": {
            operation: {
                "operationId": f"{operation}PushNotificationConfig",
                "parameters": [
                    _task_id(),
                    {
                        "name": "configId",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "minLength": 1, "pattern": "^[^/]+$"},
                    },
                ],
                "responses": _responses(
                    _ref("TaskPushNotificationConfig" if operation == "get" else "Empty"),
                    400,
                    404,
                ),
            }
            for operation in ("get", "delete")
        },
        "/v1/card": {
            "get": {
                "operationId": "getExtendedCard",
                "summary": "The authenticated extended card (404 where there is none)",
                "responses": _responses(_ref("AgentCard"), 404),
            }
        },
    }


# --- A2A 1.0's routes ----------------------------------------------------------------------------
#
# v10/rest.py's route table (ROUTES: route -> verb -> method, body and query) at routepaths'
# templates (V10_PATHS); each request object the one the 1.0 codec decodes (v10/models.py, its
# JSON Schema as msgspec writes it), with what those Structs cannot say added; the state and
# role names from the codec's tables. Component names start with "v10.".

V10_PREFIX = "v10."
V10_MEDIA_TYPE = "application/a2a+json"


def _v10_ref(name: str) -> JSON:
    return _ref(V10_PREFIX + name)


def _v10_request_schemas(limits: Limits) -> tuple[dict[str, JSON], JSON]:
    """Each 1.0 method's request object (by method name) and the components they use."""
    # A request 1.0 decodes straight into the internal model is read by a ProtoJSON of it.
    methods = {
        name: method.params.model if isinstance(method.params, ProtoJSON) else method.params
        for name, method in V10_METHODS.items()
    }
    found, components = msgspec.json.schema_components(
        list(methods.values()), ref_template=f"#/components/schemas/{V10_PREFIX}request.{{name}}"
    )
    for schema in components.values():
        schema.pop("title", None)  # the class name, which the component's name says
    _v10_fix_requests(components, limits)
    requests = dict(zip(methods, found, strict=True))
    return requests, {f"{V10_PREFIX}request.{name}": s for name, s in components.items()}


def _v10_fix_requests(schemas: JSON, limits: Limits) -> None:
    """What the service and the codec check beyond the Structs' types."""
    message = schemas["Message"]["properties"]
    # The service takes user messages only.
    message["role"] = {"const": V10_ROLES["user"], "description": "Clients send user messages."}
    message["parts"]["maxItems"] = limits.max_message_parts
    message["parts"]["description"] = (
        f"At most max_message_parts ({limits.max_message_parts}) parts."
    )
    part = schemas["Part"]
    part["properties"]["raw"] = _nullable(
        {
            "type": "string",
            "pattern": "^([A-Za-z0-9+/_-]{4})*([A-Za-z0-9+/_-]{2}(==)?|[A-Za-z0-9+/_-]{3}=?)?$",
            "description": "proto bytes: base64, standard or URL-safe, padding optional. At "
            "most max_file_bytes per file and max_message_file_bytes per message "
            f"({limits.max_file_bytes} and {limits.max_message_file_bytes} here, counted "
            "decoded): 413 beyond.",
        }
    )
    absent = {"type": "null"}
    branches = []
    for present in ("text", "raw", "url", "data"):
        others = {name: absent for name in ("text", "raw", "url") if name != present}
        branch: JSON = {"required": [present], "properties": others}
        if present != "data":
            branch["properties"] = {**others, present: STRING}
            branch["not"] = {"required": ["data"]}
        branches.append(branch)
    part["oneOf"] = branches
    part["description"] = (
        "Exactly one of text, raw, url or data (data: any JSON value, null included). The "
        "media type of a file (raw or url) must be one the agent accepts (415 otherwise)."
    )
    push = schemas["TaskPushNotificationConfig"]["properties"]
    push["url"] = {
        "type": "string",
        "format": "uri",
        "description": "Checked by the SSRF guard: https, a host resolving only to public "
        "addresses, no credentials in the URL (400 otherwise).",
    }
    push["id"] = _nullable({"type": "string", "pattern": "^[^/]*$"})
    push["token"] = _nullable(_header_value())
    schemas["AuthenticationInfo"]["properties"]["credentials"] = _nullable(_header_value())


def _v10_body(request: JSON, path_fields: tuple[str, ...]) -> JSON:
    """A route's body: its method's request object, less what the path gives (a body may
    repeat a path field only with the path's value)."""
    body = json.loads(json.dumps(request))  # a copy: the components are shared
    required = [name for name in body.get("required", []) if name not in path_fields]
    if required:
        body["required"] = required
    else:
        body.pop("required", None)
    for name in path_fields:
        if name in body["properties"]:
            body["properties"][name] = {
                **_nullable(STRING),
                "description": "Must be the path's, if given.",
            }
    return body


def _v10_responses(ok: JSON | None, *errors: int, stream: bool = False) -> JSON:
    reasons = {
        400: "invalid request (google.rpc.BadRequest names the field), or the task is in a "
        "state that does not allow this (TaskNotCancelable, UnsupportedOperation, ...)",
        401: "missing or bad credentials (the deployment's schemes, see the agent card)",
        403: "the caller lacks a scope",
        404: "no such task (or route)",
        405: "the id names another route (it ends in :cancel or :subscribe), which has no GET",
        409: "the messageId was used for another message, or the task has a config for that "
        "URL already or as many configs as it may have",
        413: "the body or a file is over a limit",
        415: "the body is not JSON, or a part's media type is not one the agent accepts",
        503: "credentials cannot be checked right now, or the store cannot be reached",
    }
    responses: JSON = {}
    if stream:
        responses["200"] = {
            "description": "Server-sent events: the Task first (unless Last-Event-ID), then its "
            "events until the task is final, waits for input, or the time budget ends.",
            "content": {"text/event-stream": {"schema": _v10_ref("StreamEvent")}},
        }
    elif ok is not None:
        responses["200"] = {"description": "OK", "content": {V10_MEDIA_TYPE: {"schema": ok}}}
    for status in sorted({*errors, 400, 401, 403, 503}):
        responses[str(status)] = {
            "description": reasons[status],
            "content": {V10_MEDIA_TYPE: {"schema": _v10_ref("Error")}},
        }
    return responses


def _v10_response_schemas() -> JSON:
    metadata = {"type": "object", "description": "google.protobuf.Struct"}
    # Every kind of part keeps the media type and file name it was given (the internal Part is
    # 1.0's).
    part_fields = {"mediaType": STRING, "filename": STRING, "metadata": metadata}
    schemas: JSON = {
        "Part": {
            "oneOf": [
                _closed(["text"], {"text": STRING, **part_fields}),
                _closed(["raw"], {"raw": {"type": "string"}, **part_fields}),
                _closed(["url"], {"url": STRING, **part_fields}),
                _closed(["data"], {"data": {"description": "any JSON"}, **part_fields}),
            ]
        },
        "Message": _closed(
            ["messageId", "role", "parts"],
            {
                "messageId": STRING,
                "contextId": STRING,
                "taskId": STRING,
                "role": {"enum": list(V10_ROLES.values())},
                "parts": {"type": "array", "items": _v10_ref("Part")},
                "metadata": metadata,
                "extensions": _strings(),
                "referenceTaskIds": _strings(),
            },
        ),
        "TaskStatus": _closed(
            ["state"],
            {
                "state": {"enum": list(V10_STATES.values())},
                "message": _v10_ref("Message"),
                "timestamp": {"type": "string", "format": "date-time"},
            },
        ),
        "Artifact": _closed(
            ["artifactId", "parts"],
            {
                "artifactId": STRING,
                "name": STRING,
                "description": STRING,
                "parts": {"type": "array", "items": _v10_ref("Part")},
                "metadata": metadata,
                "extensions": _strings(),
            },
        ),
        "Task": _closed(
            ["id", "contextId", "status"],
            {
                "id": STRING,
                "contextId": STRING,
                "status": _v10_ref("TaskStatus"),
                "artifacts": {"type": "array", "items": _v10_ref("Artifact")},
                "history": {"type": "array", "items": _v10_ref("Message")},
                "metadata": metadata,
            },
        ),
        "TaskStatusUpdateEvent": _closed(
            ["taskId", "contextId", "status"],
            {
                "taskId": STRING,
                "contextId": STRING,
                "status": _v10_ref("TaskStatus"),
                "metadata": metadata,
            },
        ),
        "TaskArtifactUpdateEvent": _closed(
            ["taskId", "contextId", "artifact"],
            {
                "taskId": STRING,
                "contextId": STRING,
                "artifact": _v10_ref("Artifact"),
                "append": {"type": "boolean"},
                "lastChunk": {"type": "boolean"},
                "metadata": metadata,
            },
        ),
        "StreamResponse": {
            "oneOf": [
                _closed(["task"], {"task": _v10_ref("Task")}),
                _closed(["message"], {"message": _v10_ref("Message")}),
                _closed(["statusUpdate"], {"statusUpdate": _v10_ref("TaskStatusUpdateEvent")}),
                _closed(
                    ["artifactUpdate"], {"artifactUpdate": _v10_ref("TaskArtifactUpdateEvent")}
                ),
            ]
        },
        "SendMessageResponse": {
            "oneOf": [
                _closed(["task"], {"task": _v10_ref("Task")}),
                _closed(["message"], {"message": _v10_ref("Message")}),
            ]
        },
        "ListTasksResponse": _closed(
            ["tasks", "nextPageToken", "pageSize", "totalSize"],
            {
                "tasks": {"type": "array", "items": _v10_ref("Task")},
                "nextPageToken": STRING,
                "pageSize": {"type": "integer"},
                "totalSize": {"type": "integer"},
            },
        ),
        "AuthenticationInfo": _closed(["scheme"], {"scheme": STRING, "credentials": STRING}),
        "TaskPushNotificationConfig": _closed(
            ["taskId", "url"],
            {
                "taskId": STRING,
                "id": STRING,
                "url": STRING,
                "token": STRING,
                "authentication": _v10_ref("AuthenticationInfo"),
            },
        ),
        "ListTaskPushNotificationConfigsResponse": _closed(
            ["configs", "nextPageToken"],
            {
                "configs": {"type": "array", "items": _v10_ref("TaskPushNotificationConfig")},
                "nextPageToken": STRING,
            },
        ),
        "AgentCard": {
            "type": "object",
            "description": "The authenticated extended agent card, in 1.0's form",
            "required": ["name", "description", "version", "supportedInterfaces"],
        },
        "Empty": _closed([], {}),
        "Error": _closed(
            ["error"],
            {
                "error": _closed(
                    ["code", "status", "message", "details"],
                    {
                        "code": {"type": "integer", "description": "the HTTP status"},
                        "status": {"type": "string", "description": "the google.rpc.Code name"},
                        "message": STRING,
                        "details": {
                            "type": "array",
                            "description": "a google.rpc.ErrorInfo (reason: the A2A error, "
                            "e.g. TASK_NOT_FOUND; domain a2a-protocol.org), then a "
                            "google.rpc.BadRequest naming the fields of an invalid request",
                            "items": {"type": "object", "required": ["@type"]},
                        },
                    },
                )
            },
        ),
    }
    schemas["StreamEvent"] = _stream_event(_v10_ref("StreamResponse"), _v10_ref("Error"))
    return {V10_PREFIX + name: schema for name, schema in schemas.items()}


V10_VERSION_HEADER: JSON = {
    "name": "A2A-Version",
    "in": "header",
    "required": True,
    "schema": {"type": "string", "pattern": r"^0*1(\.0+(\.[0-9]+)*)?$", "maxLength": 32},
    "description": "1.0: these routes are A2A 1.0's (without it a request is A2A 0.3, refused "
    "here with VersionNotSupportedError, 400). May be given as the A2A-Version query parameter "
    "instead.",
}
# Each path field of a 1.0 route: a non-empty segment.
_V10_PATH_FIELD: JSON = {"type": "string", "minLength": 1, "pattern": "^[^/]+$"}
_V10_OPERATION_IDS = {
    "SubscribeToTask": {"get": "subscribeToTask", "post": "subscribeToTaskPost"},
}


def _v10_query(name: str, request: JSON, kind: type) -> JSON:
    """A query parameter: its field's schema in the request object, as query text."""
    field = request["properties"][name]
    schema = next((s for s in field.get("anyOf", [field]) if s.get("type") != "null"), field)
    schema = {k: v for k, v in schema.items() if k != "default"}
    if kind is bool:
        schema = dict(_BOOLEAN_TEXT)
    elif kind is int:
        schema.setdefault("maximum", 10**20 - 1)  # up to 20 digits
    elif name == "statusTimestampAfter":
        # RFC 3339, checked by the codec; empty is left out (proto3).
        schema = {"anyOf": [{"type": "string", "format": "date-time"}, {"const": ""}]}
    return {"name": name, "in": "query", "required": False, "schema": schema}


def _v10_operations(limits: Limits) -> tuple[JSON, JSON]:
    requests, components = _v10_request_schemas(limits)
    paths: JSON = {}
    for route, verbs in V10_ROUTES.items():
        template = V10_PATHS[route]
        path_fields = tuple(part[1:-1] for part in re.findall(r"\{[^}]+\}", template))
        operations: JSON = {}
        for verb, operation in verbs.items():
            request = components[requests[operation.method]["$ref"].rsplit("/", 1)[1]]
            parameters: list[JSON] = [V10_VERSION_HEADER]
            for name in path_fields:
                schema = dict(_V10_PATH_FIELD)
                if route == "task":
                    # /tasks/{id}: an id ending in ":cancel" or ":subscribe" names those routes.
                    schema["not"] = {"pattern": ":(cancel|subscribe)$"}
                parameters.append({"name": name, "in": "path", "required": True, "schema": schema})
            parameters += [_v10_query(name, request, kind) for name, kind in operation.query]
            method = verb.lower()
            op_id = _V10_OPERATION_IDS.get(operation.method, {}).get(method)
            entry: JSON = {
                "operationId": op_id or operation.method[0].lower() + operation.method[1:],
                "summary": f"A2A 1.0 {operation.method}",
                "parameters": parameters,
            }
            errors: tuple[int, ...] = (404,)
            if operation.body is not None:
                body = _v10_body(request, path_fields)
                entry["requestBody"] = {
                    "required": bool(operation.body or operation.typed),
                    "description": "JSON (application/a2a+json or application/json)"
                    + ("" if operation.body else "; `{}` will do"),
                    "content": _json(body),
                }
                errors += (409, 413, 415)
            if route == "task":
                errors += (405,)
            streaming = V10_METHODS[operation.method].streaming
            ok = None if streaming else _v10_ref(_V10_RESULTS[operation.method])
            entry["responses"] = _v10_responses(ok, *errors, stream=streaming)
            operations[method] = entry
        paths[template] = operations
    return paths, components


# What each 1.0 method answers (a component of _v10_response_schemas).
_V10_RESULTS = {
    "SendMessage": "SendMessageResponse",
    "GetTask": "Task",
    "ListTasks": "ListTasksResponse",
    "CancelTask": "Task",
    "CreateTaskPushNotificationConfig": "TaskPushNotificationConfig",
    "GetTaskPushNotificationConfig": "TaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs": "ListTaskPushNotificationConfigsResponse",
    "DeleteTaskPushNotificationConfig": "Empty",
    "GetExtendedAgentCard": "AgentCard",
}


def build(limits: Limits) -> JSON:
    """The OpenAPI document for a deployment with these limits."""
    v10_paths, v10_components = _v10_operations(limits)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "A2A HTTP+JSON/REST transports, A2A 0.3 and 1.0 (a2a-serverless)",
            "version": PROTOCOL_VERSION,
            "description": DESCRIPTION,
        },
        "paths": {**_operations(), **v10_paths},
        "components": {
            "schemas": {
                **_response_schemas(),
                **_request_schemas(limits),
                **_v10_response_schemas(),
                **v10_components,
            },
        },
    }


def render() -> str:
    """The text of openapi.json: the document with a placeholder for each deployment limit."""
    text = json.dumps(build(Limits.placeholders()), indent=1, ensure_ascii=False) + "\n"
    for name in DEPLOYMENT_LIMITS:
        if placeholder(name) not in text:
            raise AssertionError(f"the document no longer shows {name}: drop it from the limits")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT.relative_to(ROOT)} is stale: run scripts/openapi_gen.py")
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
