"""0.3's JSON-RPC models checked field by field against the A2A 0.3 JSON Schema (`a2a.json`).

The models are the 0.3 codec's where it declares its own (`v03/jsonrpc_models.py`: parts,
messages, tasks and events; `v03/jsonrpc_params.py`: the method params and results and the
nested push config; `v03/card.py`: the agent card; where the internal model is 1.0's), else
`a2a_serverless.models`'s.

For every plain-object definition of the schema (see `checked_definitions` for what is left out
and why) there must be a model of the same name whose wire field names are exactly the schema's
`properties`, whose required fields are exactly the schema's `required` (allowances below), and
whose field types have the schema's shape. Our side comes from the Structs' own field tables
(`msgspec.structs.fields`: wire name, default, type), plus the tag of a tagged Struct (`kind`,
`type`), which msgspec writes and reads as a field.

Allowed differences, all deliberate:
- a `kind` / `type` discriminator required by the schema may default to its `const` value, so a
  Python caller never spells it out (it is still always written on the wire);
- a field required by the schema may default to the value the schema itself declares as its
  `default` (`AgentCard.protocolVersion` = "0.3.0"; also always written on the wire);
- value constraints (minimum, maximum, minItems) are not compared: the schema has none, ours come
  from the specification's text (e.g. `pageSize` 1..100) or from policy (`Message.parts` not
  empty); tests/unit/test_spec_examples.py tests them.
"""

from __future__ import annotations

import json
import types
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec
import pytest

from a2a_serverless import models
from a2a_serverless.v03 import card, jsonrpc_models, jsonrpc_params

# The published v0.3 schema, kept as a test fixture (source and license in its README).
SPEC_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "a2a-spec-v0.3"


SCHEMA: dict[str, Any] = json.loads((SPEC_DIR / "a2a.json").read_text(encoding="utf-8"))
DEFS: dict[str, Any] = SCHEMA["definitions"]

# Abstract bases: the schema repeats their properties in every concrete definition (checked
# there), and nothing on the wire is ever just one of these.
ABSTRACT_BASES = {
    "FileBase": "base of FileWithBytes / FileWithUri",
    "PartBase": "base of TextPart / FilePart / DataPart",
    "SecuritySchemeBase": "base of the five *SecurityScheme definitions",
    "JSONRPCMessage": "base of the JSON-RPC request and response envelopes",
}


def checked_definitions() -> list[str]:
    names = []
    for name, definition in DEFS.items():
        if definition.get("type") != "object" or "properties" not in definition:
            continue  # unions (anyOf) and enums: see test_unions / test_enums
        if name.endswith(("Request", "Response")):
            continue  # JSON-RPC envelopes, one per method
        if name.endswith("Error") and name != "JSONRPCError":
            continue  # the specific error objects: all are JSONRPCError with a fixed code
        if name in ABSTRACT_BASES:
            continue
        names.append(name)
    return names


CHECKED = checked_definitions()


def model_named(name: str) -> type[models.A2AModel]:
    model = (
        getattr(jsonrpc_models, name, None)
        or getattr(jsonrpc_params, name, None)
        or getattr(card, name, None)
        or getattr(models, name, None)
    )
    assert isinstance(model, type) and issubclass(model, models.A2AModel), (
        f"a2a.json defines {name!r}; none of v03.jsonrpc_models, v03.jsonrpc_params, v03.card "
        "and models has a model of that name"
    )
    return model


@dataclass(frozen=True)
class Field:
    required: bool
    default: Any
    annotation: Any

    def is_required(self) -> bool:
        return self.required


def _default(info: msgspec.structs.FieldInfo) -> Any:
    if info.default_factory is not msgspec.NODEFAULT:
        return info.default_factory()
    return info.default


def wire_fields(model: type[models.A2AModel]) -> dict[str, Field]:
    """Wire name -> Field, the Struct's tag included (it defaults to its only value)."""
    found = {
        info.encode_name: Field(info.required, _default(info), info.type)
        for info in msgspec.structs.fields(model)
    }
    config = model.__struct_config__
    if isinstance(config.tag_field, str):
        found[config.tag_field] = Field(False, config.tag, Literal[config.tag])
    return found


# --- shapes: a type reduced to what both JSON Schemas can be compared on ------------------------


def schema_shape(prop: dict[str, Any]) -> str:
    """Shape of a property schema from a2a.json."""
    if "$ref" in prop:
        target: str = prop["$ref"].rsplit("/", 1)[-1]
        if "anyOf" in DEFS[target]:  # Part, SecurityScheme: a named union
            return schema_shape(DEFS[target])
        return target
    return _common_shape(prop, schema_shape)


def model_shape(annotation: Any) -> str:
    """Shape of one of our fields' type annotation, in the terms of `schema_shape`."""
    if annotation is jsonrpc_models._FileObject:  # decoded as one, always made one of these two
        return "union[FileWithBytes,FileWithUri]"
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:  # value constraints: not compared (see the module docstring)
        return model_shape(args[0])
    if origin is Union or origin is types.UnionType:
        # `X | None`: optional-ness is checked separately, through `required`.
        members = [arg for arg in args if arg is not type(None)]
        if len(members) == 1:
            return model_shape(members[0])
        return "union[" + ",".join(sorted(model_shape(m) for m in members)) + "]"
    if origin is Literal:
        return f"const:{args[0]}" if len(args) == 1 else f"enum[{','.join(sorted(args))}]"
    if origin is list:
        return f"array<{model_shape(args[0])}>"
    if origin is dict:
        return "map<any>" if args[1] is Any else f"map<{model_shape(args[1])}>"
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return annotation.__name__
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return annotation.__name__
    scalars = {str: "string", int: "integer", bool: "boolean", float: "number", Any: "any"}
    assert annotation in scalars, f"no shape for {annotation!r}"
    return scalars[annotation]


def _common_shape(prop: dict[str, Any], shape: Any) -> str:
    for key in ("anyOf", "oneOf"):
        if key in prop:
            return "union[" + ",".join(sorted(shape(p) for p in prop[key])) + "]"
    if "const" in prop:
        return f"const:{prop['const']}"
    if "enum" in prop:
        return "enum[" + ",".join(sorted(prop["enum"])) + "]"
    kind = prop.get("type")
    if kind == "array":
        return f"array<{shape(prop['items'])}>"
    if kind == "object":
        extra = prop.get("additionalProperties")
        if extra in (True, {}):
            return "map<any>"
        if isinstance(extra, dict):
            return f"map<{shape(extra)}>"
        return "object"
    if kind is None:
        return "any"
    return str(kind)


# --- tests --------------------------------------------------------------------------------------


def test_every_definition_is_accounted_for() -> None:
    """Nothing in the schema escapes both the check and the documented exclusions."""
    assert set(ABSTRACT_BASES) <= set(DEFS)
    assert len(CHECKED) >= 40
    for name in ("Task", "Message", "AgentCard", "ListTasksParams", "ListTasksResult"):
        assert name in CHECKED


@pytest.mark.parametrize("name", CHECKED)
def test_model_has_the_schema_fields(name: str) -> None:
    model = model_named(name)
    assert set(wire_fields(model)) == set(DEFS[name]["properties"])


@pytest.mark.parametrize("name", CHECKED)
def test_model_requires_what_the_schema_requires(name: str) -> None:
    definition = DEFS[name]
    schema_required = set(definition.get("required", []))
    problems = []
    for wire, field in wire_fields(model_named(name)).items():
        prop = definition["properties"].get(wire, {})
        if field.is_required() == (wire in schema_required):
            continue
        if field.is_required():
            problems.append(f"{wire}: required by our model, optional in the schema")
        elif wire in ("kind", "type") and "const" in prop and field.default == prop["const"]:
            continue  # discriminator defaulting to its only possible value
        elif "default" in prop and field.default == prop["default"]:
            continue  # the schema's own default
        else:
            problems.append(f"{wire}: required by the schema, defaults to {field.default!r}")
    assert not problems, f"{name}: " + "; ".join(problems)


@pytest.mark.parametrize("name", CHECKED)
def test_model_field_types_have_the_schema_shape(name: str) -> None:
    ours = wire_fields(model_named(name))
    theirs = DEFS[name]["properties"]
    mismatches = {
        wire: (model_shape(ours[wire].annotation), schema_shape(prop))
        for wire, prop in theirs.items()
        if wire in ours and model_shape(ours[wire].annotation) != schema_shape(prop)
    }
    assert not mismatches, f"{name}: field -> (ours, schema): {mismatches}"


@pytest.mark.parametrize("name", CHECKED)
def test_discriminators_default_to_the_schema_const(name: str) -> None:
    fields = wire_fields(model_named(name))
    for wire in ("kind", "type"):
        prop = DEFS[name]["properties"].get(wire, {})
        if "const" in prop:
            assert fields[wire].default == prop["const"]


@pytest.mark.parametrize("name", ["TaskState", "TransportProtocol"])
def test_enums(name: str) -> None:
    enum = getattr(models, name)
    assert issubclass(enum, Enum)
    assert {member.value for member in enum} == set(DEFS[name]["enum"])


@pytest.mark.parametrize(
    ("name", "union"),
    [("Part", jsonrpc_models.Part), ("SecurityScheme", card.SecurityScheme)],
)
def test_unions(name: str, union: Any) -> None:
    members = get_args(union)
    expected = {ref["$ref"].rsplit("/", 1)[-1] for ref in DEFS[name]["anyOf"]}
    assert {member.__name__ for member in members} == expected
