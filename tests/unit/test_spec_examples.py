"""Every JSON example of section 9 ("Common Workflows & Examples") of the A2A specification,
parsed into our 0.3 objects (`v03/jsonrpc_models.py` for messages, tasks and events, the
models for the rest) and written back unchanged.

How a code block of section 9 of the specification (kept in
`tests/fixtures/a2a-spec-v0.3/specification-section-9.md`) becomes a test case:

1. Extraction: every ```json block of section 9 is an example, numbered from 1 within its
   subsection (`9.4-2` is the second JSON block of 9.4). A block of SSE `data:` lines is split into
   one example per event (`9.3-2.1` is the first event of the second block of 9.3).
2. Generic pre-processing, applied to every example alike (`strip_json_noise`): JavaScript `//`
   comments outside strings and trailing commas before `}` / `]` are removed. Both are JSON
   syntax noise the spec uses for narration; nothing else is ever changed generically.
3. Any other defect is repaired only through ERRATA: per example, each defect of the spec with
   the minimal repair applied (`Fix.defect`, `Fix.repair`). A test proves every single repair
   necessary (`test_erratum_is_rejected_without_repair`): with all the example's other repairs
   but that one, the example is rejected (not JSON, refused by our models, or, for a `kind` our
   models default, not given back unchanged), so the table cannot hide a bug of our models.
   Most entries are Messages without `kind`: the schema requires it, section 9 mostly omits it.
4. Check (`check_example`), by what the example is:
   - request: the envelope (`jsonrpc` "2.0", an `id`, a known `method`), and `params` parsed with
     the method's params model (PARAMS_MODELS);
   - response: `result` parsed by its shape (`kind`: task / message / status-update /
     artifact-update; a dict with `tasks`: ListTasksResult; an AgentCard; push config(s)), or
     `error` parsed as JSONRPCError;
   - bare object (a webhook body): parsed as what its `kind` says.
   Then `dump()` gives back the example (dict equality: key order does not matter); our models
   ignore unknown members, so a field unknown to them shows up as dropped.

9.5-7 is the spec's own example of *invalid* `tasks/list` params: it must be rejected, and is
tested as such (EXPECTED_INVALID). CONTENT_NOTES lists what is odd in examples but lies in free
text or free-form values (placeholders, inconsistent numbers), which neither the schema nor our
models constrain: for these, nothing is repaired.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless.models import (
    A2AModel,
    JSONRPCErrorResponse,
    JSONRPCRequest,
    JSONRPCSuccessResponse,
    ValidationError,
    validate,
)
from a2a_serverless.v03.card import AgentCard, APIKeySecurityScheme
from a2a_serverless.v03.jsonrpc_models import Message, StreamResult
from a2a_serverless.v03.jsonrpc_params import (
    DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
    ListTasksParams,
    ListTasksResult,
    MessageSendParams,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
)

SECTION = "## 9. Common Workflows & Examples"


# Section 9 of the published v0.3 specification, kept verbatim as a test fixture (source and
# license in its README).
SPECIFICATION = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "a2a-spec-v0.3"
    / "specification-section-9.md"
)


# --- extraction ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    subsection: str  # "9.2"
    block: int  # the JSON block's number within the subsection, from 1
    event: int | None  # the SSE event's number within the block, from 1
    raw: str  # the JSON text as the spec has it (dedented; an SSE event without `data:`)

    @property
    def block_key(self) -> str:
        return f"{self.subsection}-{self.block}"

    @property
    def key(self) -> str:  # "9.2-1", or "9.3-2.1" for the first event of an SSE block
        return self.block_key if self.event is None else f"{self.block_key}.{self.event}"


def section_lines(text: str) -> list[str]:
    lines = text.splitlines()
    if SECTION not in lines:
        pytest.fail(f"specification.md has no heading {SECTION!r}", pytrace=False)
    start = lines.index(SECTION) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def extract_examples(text: str) -> tuple[list[Example], int]:
    """The examples of section 9, and the number of ```json fences seen there."""
    examples: list[Example] = []
    fences = 0
    subsection: str | None = None
    counters: dict[str, int] = {}
    block: list[str] | None = None
    indent = ""
    for line in section_lines(text):
        if block is not None:
            if line.strip() == "```":
                assert subsection is not None, "a JSON block before the first ### heading"
                counters[subsection] = counters.get(subsection, 0) + 1
                raw = textwrap.dedent("\n".join(block))
                examples.extend(split_block(subsection, counters[subsection], raw))
                block = None
            else:
                block.append(line.removeprefix(indent))
            continue
        if heading := re.match(r"### (9\.\d+)\.? ", line):
            subsection = heading.group(1)
        elif fence := re.match(r"(\s*)```json\s*$", line):
            fences += 1
            indent = fence.group(1)
            block = []
    assert block is None, "unterminated ```json block in section 9"
    return examples, fences


def split_block(subsection: str, block: int, text: str) -> list[Example]:
    if not text.lstrip().startswith("data:"):
        return [Example(subsection, block, None, text)]
    events = re.split(r"^data:[ \t]*", text.strip(), flags=re.MULTILINE)
    assert events[0] == ""
    return [Example(subsection, block, n, raw) for n, raw in enumerate(events[1:], start=1)]


# --- generic pre-processing ---------------------------------------------------------------------


def strip_json_noise(text: str) -> str:
    """`text` without `//` comments and trailing commas, both only outside JSON strings."""
    return _drop_trailing_commas(_drop_comments(text))


def _drop_comments(text: str) -> str:
    out: list[str] = []
    i, in_string = 0, False
    while i < len(text):
        char = text[i]
        if in_string:
            if char == "\\":
                out.append(text[i : i + 2])
                i += 2
                continue
            in_string = char != '"'
        elif char == '"':
            in_string = True
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _drop_trailing_commas(text: str) -> str:
    out: list[str] = []
    i, in_string = 0, False
    while i < len(text):
        char = text[i]
        if in_string:
            if char == "\\":
                out.append(text[i : i + 2])
                i += 2
                continue
            in_string = char != '"'
        elif char == '"':
            in_string = True
        elif char == ",":
            rest = text[i + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                i += 1
                continue
        out.append(char)
        i += 1
    return "".join(out)


# --- errata ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fix:
    """One defect of one example, and its minimal repair."""

    defect: str  # what is wrong in the spec's example
    repair: str  # the minimal repair applied here
    # Without this repair the example fails with `rejected_by` matching `rejected_for`:
    # - ValidationError: our models refuse it;
    # - AssertionError: our models accept it but give back something else (a `kind` omitted by
    #   the example is a discriminator our models default, and `dump()` always writes);
    # - JSONDecodeError: a syntax defect, the example is not JSON.
    rejected_by: type[Exception]
    rejected_for: str
    fix_text: Callable[[str], str] | None = None
    fix_data: Callable[[Any], None] | None = None


def _at(data: Any, path: str) -> Any:
    """`data` at a path such as "result.history[0]" ("" is `data` itself)."""
    for name, index in re.findall(r"(\w+)|\[(\d+)\]", path):
        data = data[name] if name else data[int(index)]
    return data


def _add(obj: dict[str, Any], key: str, value: Any) -> None:
    assert key not in obj, f"erratum is stale: {key!r} is already there"
    obj[key] = value


def missing_kind(kind: str, *paths: str) -> Fix:
    """Objects the schema requires a `kind` of, nested where our models default it."""

    def fix(data: Any) -> None:
        for path in paths:
            _add(_at(data, path), "kind", kind)

    return Fix(
        defect=f"no `kind` (required) on the {kind} at {', '.join(paths)}",
        repair=f'add "kind": "{kind}"',
        rejected_by=AssertionError,
        rejected_for=r"\.kind added",
        fix_data=fix,
    )


def missing_field(path: str, key: str, value: Any, defect: str) -> Fix:
    return Fix(
        defect=defect,
        repair=f"add {key!r}: {value!r} at {path or 'top level'}",
        rejected_by=ValidationError,
        rejected_for=key,
        fix_data=lambda data: _add(_at(data, path), key, value),
    )


def placeholder_bytes(path: str) -> Fix:
    def fix(data: Any) -> None:
        file = _at(data, path)
        # Under `data` when this example's other erratum (data -> bytes) is left out.
        key = "bytes" if "bytes" in file else "data"
        assert key in file, f"erratum is stale: no file content at {path}"
        file[key] = "AAAA"

    return Fix(
        defect=f"the file bytes at {path} are a placeholder, not base64",
        repair='put "AAAA" (three zero bytes) in their place',
        rejected_by=ValidationError,
        rejected_for="base64",
        fix_data=fix,
    )


def file_data_as_bytes(path: str) -> Fix:
    def fix(data: Any) -> None:
        file = _at(data, path)
        _add(file, "bytes", file.pop("data"))

    return Fix(
        defect=f"the file at {path} carries its content in `data`; FileWithBytes names it `bytes`",
        repair="rename `data` to `bytes`",
        rejected_by=ValidationError,
        rejected_for="bytes",
        fix_data=fix,
    )


def _move_message_id_into_message(data: Any) -> None:
    params = data["params"]
    _add(params["message"], "messageId", params.pop("messageId"))


def _close_truncated_task_list(text: str) -> str:
    # The block stops after tasks[0].status and goes on with the result's own fields.
    pattern = r'("timestamp": "2024-03-15T10:15:00Z"\s*\})\s*,'
    fixed, count = re.subn(pattern, r"\1}],", text)
    assert count == 1, f"erratum is stale: {pattern!r} matched {count} times"
    return fixed


ERRATA: dict[str, list[Fix]] = {
    "9.2-1": [missing_kind("message", "params.message")],
    "9.2-2": [missing_kind("message", "result.history[0]")],
    "9.2-3": [missing_kind("message", "params.message")],
    "9.2-4": [
        missing_field("result", "role", "agent", "the Message result has no `role` (required)"),
    ],
    "9.3-1": [
        file_data_as_bytes("params.message.parts[1].file"),
        placeholder_bytes("params.message.parts[1].file"),
        missing_kind("message", "params.message"),
    ],
    "9.3-2.1": [
        file_data_as_bytes("result.history[0].parts[1].file"),
        placeholder_bytes("result.history[0].parts[1].file"),
        missing_kind("message", "result.history[0]"),
    ],
    "9.4-1": [
        Fix(
            defect="`messageId` sits in params, beside `message` instead of inside it",
            repair="move params.messageId into params.message",
            rejected_by=ValidationError,
            rejected_for="messageId",
            fix_data=_move_message_id_into_message,
        ),
        missing_kind("message", "params.message"),
    ],
    "9.4-2": [missing_kind("message", "result.status.message", "result.history[0]")],
    "9.4-3": [missing_kind("message", "params.message")],
    "9.4-4": [
        missing_field(
            "result.status.message",
            "messageId",
            "9.4-4-status-message",
            "the status message has no `messageId` (required)",
        ),
        missing_kind(
            "message",
            "result.status.message",
            "result.history[0]",
            "result.history[1]",
            "result.history[2]",
        ),
    ],
    "9.5-2": [
        Fix(
            defect="truncated: tasks[0] and the tasks array are never closed",
            repair="close both after tasks[0].status",
            rejected_by=json.JSONDecodeError,
            rejected_for="",
            fix_text=_close_truncated_task_list,
        ),
        missing_kind("task", "result.tasks[0]"),
    ],
    "9.5-4": [missing_kind("message", "result.tasks[0].status.message")],
    "9.6-1": [missing_kind("message", "params.message")],
    "9.6-2": [
        missing_field(
            "result",
            "kind",
            "task",
            "the Task result has no `kind` (required; elided as '... other fields ...')",
        ),
    ],
    "9.7-1": [
        placeholder_bytes("params.message.parts[1].file"),
        missing_kind("message", "params.message"),
    ],
    "9.8-1": [missing_kind("message", "params.message")],
}

# Examples that are not JSON at all (only placeholders) and so cannot be tested: none in section 9.
SKIPPED: dict[str, str] = {}

# The spec's own example of a request the server must refuse; answered by the error of 9.5-8.
EXPECTED_INVALID: dict[str, set[str]] = {
    "9.5-7": {"pageSize", "historyLength", "status"},  # 150 > 100, -5 < 0, "running" no state
}

# Odd but not checkable: free text or free-form values, typed as plain strings / `any` by the
# schema. These examples pass as they are; nothing is repaired.
CONTENT_NOTES: dict[str, str] = {
    "9.3-2.1": 'captioned "working" but the task is "submitted"',
    "9.3-2.2": 'artifact text is the placeholder "<section 1...>"',
    "9.4-4": 'DataPart data has the placeholder "returnDeparture": "..."',
    "9.5-2": "totalSize 5 though a page of 10 holds one task",
    "9.5-5": 'pageToken is the placeholder "<base64-encoded-cursor-token>"',
    "9.5-6": "the tasks array holds only a comment; nextPageToken is a placeholder",
    "9.5-8": (
        "-32602 error with extra `data` (free-form in the schema: fine); its message says "
        '"Invalid params" (schema default: "Invalid parameters") and lists states that '
        'TaskState lacks ("pending")'
    ),
}


# --- parsing and checking -----------------------------------------------------------------------

PARAMS_MODELS: dict[str, type[A2AModel] | None] = {
    "message/send": MessageSendParams,
    "message/stream": MessageSendParams,
    "tasks/get": TaskQueryParams,
    "tasks/list": ListTasksParams,
    "tasks/cancel": TaskIdParams,
    "tasks/resubscribe": TaskIdParams,
    "tasks/pushNotificationConfig/set": TaskPushNotificationConfig,
    "tasks/pushNotificationConfig/get": GetTaskPushNotificationConfigParams,
    "tasks/pushNotificationConfig/list": ListTaskPushNotificationConfigParams,
    "tasks/pushNotificationConfig/delete": DeleteTaskPushNotificationConfigParams,
    "agent/getAuthenticatedExtendedCard": None,
}


def kind_object(data: Any) -> Any:
    """An object parsed as what its `kind` says (task, message, status or artifact update)."""
    return validate(StreamResult, data)


def load(example: Example) -> Any:
    """The example, pre-processed and with the repairs of its ERRATA entry."""
    return apply_fixes(strip_json_noise(example.raw), ERRATA.get(example.key, []))


def apply_fixes(text: str, fixes: list[Fix]) -> Any:
    for fix in fixes:
        if fix.fix_text is not None:
            text = fix.fix_text(text)
    data = json.loads(text)
    for fix in fixes:
        if fix.fix_data is not None:
            fix.fix_data(data)
    return data


def role_of(data: Any) -> str:
    if not isinstance(data, dict):
        return "not-an-object"
    if "method" in data:
        return "request"
    if "error" in data:
        return "error"
    if "result" in data:
        return "response"
    return "object"


def parse_result(result: Any) -> Any:
    """A method's result, parsed by its shape."""
    if result is None:
        return None
    if isinstance(result, list):
        return [TaskPushNotificationConfig.model_validate(item) for item in result]
    if isinstance(result, dict):
        if "tasks" in result:
            return ListTasksResult.model_validate(result)
        if "pushNotificationConfig" in result:
            return TaskPushNotificationConfig.model_validate(result)
        if "skills" in result and "capabilities" in result:
            return AgentCard.model_validate(result)
    return kind_object(result)


def dump(value: Any) -> Any:
    if isinstance(value, A2AModel):
        return value.model_dump()
    if isinstance(value, list):
        return [dump(item) for item in value]
    return value


def differences(ours: Any, theirs: Any, path: str = "$") -> Iterator[str]:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in ours.keys() - theirs.keys():
            yield f"{path}.{key} added"
        for key in theirs.keys() - ours.keys():
            yield f"{path}.{key} dropped"
        for key in ours.keys() & theirs.keys():
            yield from differences(ours[key], theirs[key], f"{path}.{key}")
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (mine, other) in enumerate(zip(ours, theirs, strict=True)):
            yield from differences(mine, other, f"{path}[{index}]")
    elif ours != theirs or type(ours) is not type(theirs):
        yield f"{path}: {theirs!r} became {ours!r}"


def assert_round_trip(parsed: list[Any], rebuilt: Any, original: Any) -> None:
    # Our models ignore unknown members, so a misspelt or misplaced name shows up here as
    # "dropped".
    diff = list(differences(rebuilt, original))
    assert not diff, f"round trip differs: {diff}"


def check_request(data: dict[str, Any]) -> None:
    envelope = JSONRPCRequest.model_validate(data)
    assert isinstance(envelope.id, str | int), "an A2A request needs an id"
    assert envelope.method in PARAMS_MODELS, f"unknown method {envelope.method!r}"
    params_model = PARAMS_MODELS[envelope.method]
    rebuilt = envelope.model_dump()
    parsed: list[Any] = [envelope]
    if params_model is None:
        assert "params" not in data, f"{envelope.method} takes no params"
    elif "params" in data:
        params = params_model.model_validate(data["params"])
        parsed.append(params)
        rebuilt["params"] = params.model_dump()
    assert_round_trip(parsed, rebuilt, data)


def check_response(data: dict[str, Any]) -> None:
    envelope = JSONRPCSuccessResponse.model_validate(data)
    result = parse_result(data["result"])
    rebuilt = envelope.model_dump()
    rebuilt["result"] = dump(result)
    assert_round_trip([envelope, result], rebuilt, data)


def check_error(data: dict[str, Any]) -> None:
    assert "result" not in data, "a response has a result or an error, not both"
    envelope = JSONRPCErrorResponse.model_validate(data)
    assert_round_trip([envelope], envelope.model_dump(), data)


def check_object(data: dict[str, Any]) -> None:
    parsed = kind_object(data)
    assert_round_trip([parsed], parsed.model_dump(), data)


CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "request": check_request,
    "response": check_response,
    "error": check_error,
    "object": check_object,
}


def check_example(data: Any) -> None:
    role = role_of(data)
    assert role in CHECKS, f"example is {role}"
    CHECKS[role](data)


# --- collection ---------------------------------------------------------------------------------

SPEC_TEXT = SPECIFICATION.read_text(encoding="utf-8")
EXAMPLES, FENCES = extract_examples(SPEC_TEXT)
BY_KEY = {example.key: example for example in EXAMPLES}


def _param(example: Example) -> Any:
    try:
        role = role_of(load(example))
    except Exception:  # the test itself reports the failure
        role = "unparsable"
    return pytest.param(example, id=f"{example.key}-{role}")


ROUND_TRIP = [_param(e) for e in EXAMPLES if e.key not in EXPECTED_INVALID and e.key not in SKIPPED]


def test_extraction_found_every_example() -> None:
    assert {e.subsection for e in EXAMPLES} == {f"9.{n}" for n in range(1, 9)}
    assert len({e.block_key for e in EXAMPLES}) == FENCES, "every ```json block was extracted"
    assert len(BY_KEY) == len(EXAMPLES), "example keys are unique"
    assert [e.event for e in EXAMPLES if e.block_key == "9.3-2"] == [1, 2, 3, 4, 5]


def test_tables_name_existing_examples() -> None:
    for table in (ERRATA, SKIPPED, EXPECTED_INVALID, CONTENT_NOTES):
        assert set(table) <= set(BY_KEY), f"stale keys: {set(table) - set(BY_KEY)}"
    assert not set(ERRATA) & set(SKIPPED)
    assert not set(EXPECTED_INVALID) & (set(ERRATA) | set(SKIPPED))


@pytest.mark.parametrize("example", ROUND_TRIP)
def test_example_round_trips(example: Example) -> None:
    check_example(load(example))


ERRATA_FIXES = [
    pytest.param(key, n, id=f"{key}-fix{n + 1}")
    for key, fixes in sorted(ERRATA.items())
    for n in range(len(fixes))
]


@pytest.mark.parametrize(("key", "n"), ERRATA_FIXES)
def test_erratum_is_rejected_without_repair(key: str, n: int) -> None:
    """Each repair is needed: with all the example's other repairs but this one, it fails."""
    fixes = ERRATA[key]
    fix, others = fixes[n], fixes[:n] + fixes[n + 1 :]
    text = strip_json_noise(BY_KEY[key].raw)
    if fix.rejected_by is json.JSONDecodeError:
        with pytest.raises(json.JSONDecodeError):
            apply_fixes(text, [other for other in others if other.fix_text is not None])
        return
    data = apply_fixes(text, others)
    with pytest.raises(fix.rejected_by, match=fix.rejected_for):
        check_example(data)


@pytest.mark.parametrize("key", sorted(EXPECTED_INVALID))
def test_invalid_example_is_rejected(key: str) -> None:
    data = load(BY_KEY[key])
    envelope = JSONRPCRequest.model_validate(data)
    params_model = PARAMS_MODELS[envelope.method]
    assert params_model is not None
    # Our models report the first problem they meet: each invalid field, alone, is refused.
    invalid = EXPECTED_INVALID[key]
    assert envelope.params is not None
    for name in sorted(invalid):
        alone = {k: v for k, v in envelope.params.items() if k == name or k not in invalid}
        with pytest.raises(ValidationError) as caught:
            params_model.model_validate(alone)
        assert caught.value.errors()[0]["loc"][0] == name


# --- the checker itself ---------------------------------------------------------------------------


def test_noise_stripping_keeps_strings() -> None:
    text = '{"uri": "https://x/y", // a "quoted", comment\n "s": "a, ]",\n}'
    assert json.loads(strip_json_noise(text)) == {"uri": "https://x/y", "s": "a, ]"}


def test_checker_reports_unknown_fields() -> None:
    task = {"kind": "task", "id": "t", "contextId": "c", "status": {"state": "working"}}
    check_example(task)
    with pytest.raises(AssertionError, match=r"\$\.status\.timeStamp"):
        check_example({**task, "status": {"state": "working", "timeStamp": "2025-01-01"}})


def test_checker_reports_a_changed_value() -> None:
    # Our models take JSON types strictly and so change no value they accept (the round trips
    # above would show it); the checker must still see a value that comes back different,
    # type included (0 == False in Python).
    assert list(differences({"final": False}, {"final": 0})) == ["$.final: 0 became False"]
    assert list(differences({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "y"}]})) == [
        "$.a[1].b: 'y' became 'x'"
    ]


def test_a_number_is_not_a_boolean() -> None:
    event = {
        "kind": "status-update",
        "taskId": "t",
        "contextId": "c",
        "status": {"state": "working"},
        "final": 0,
    }
    with pytest.raises(ValidationError, match="final"):
        check_example(event)


# --- constraints the examples rely on -------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [{"pageSize": 0}, {"pageSize": 101}, {"historyLength": -1}],
    ids=["pageSize-0", "pageSize-101", "historyLength-negative"],
)
def test_list_tasks_params_rejects_out_of_range(params: dict[str, int]) -> None:
    with pytest.raises(ValidationError):
        ListTasksParams.model_validate(params)


def test_list_tasks_params_accepts_the_bounds() -> None:
    assert ListTasksParams.model_validate({"pageSize": 1, "historyLength": 0}).page_size == 1
    assert ListTasksParams.model_validate({"pageSize": 100}).page_size == 100


MESSAGE = {"kind": "message", "messageId": "m-1", "role": "user"}


def test_message_rejects_unknown_part_kind() -> None:
    with pytest.raises(ValidationError, match="audio"):
        Message.model_validate({**MESSAGE, "parts": [{"kind": "audio", "text": "hi"}]})


def test_message_rejects_empty_parts() -> None:
    with pytest.raises(ValidationError, match="parts"):
        Message.model_validate({**MESSAGE, "parts": []})


def test_api_key_security_scheme_round_trips_in() -> None:
    wire = {"type": "apiKey", "name": "X-API-Key", "in": "header"}
    scheme = APIKeySecurityScheme.model_validate(wire)
    assert scheme.in_ == "header"
    assert scheme.model_dump() == wire
    assert APIKeySecurityScheme(name="k", in_="query").model_dump() == {
        "type": "apiKey",
        "name": "k",
        "in": "query",
    }
