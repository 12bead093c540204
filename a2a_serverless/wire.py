"""Wire models: the typed-object layer under `models.py`, in plain Python (no dependencies).

A model is a class deriving from `WireModel` with annotated fields, as with dataclasses:

    class TextPart(WireModel):
        kind: Literal["text"] = "text"
        text: str
        metadata: dict[str, Any] | None = None

Each field has a Python name (snake_case) and a wire name (its camelCase, or `field(wire=...)`).
What a model does:

- `Model.model_validate(obj)` and `Model(**fields)` make a checked object from a JSON object (a
  dict). Input is accepted under the wire name or the Python name (not both at once); unknown
  fields are kept (`model_extra`) and written back by `dump()`. Types are JSON's, strictly: a
  `str` field takes a string, an `int` an integer (never a bool or a float), a `bool` only
  true/false, a list a list, an object a dict with string keys; an enum or a `Literal` its
  values; a nested model a dict (or an instance, kept as it is). `field(ge=, le=, min_length=)`
  add bounds. Every problem is reported at once, in a `ValidationError` (a ValueError).
- `dump()` is the JSON-ready dict (wire names, fields that are None left out, unknown fields
  last); `dump_json()` the same as compact UTF-8 JSON bytes.
- `model_copy(update=..., deep=False)` copies, with some fields replaced (not validated).
- Objects are equal when of the same class with equal fields and unknown fields.

A union of models is told apart without trying each member: by a field every member types as a
`Literal` of its own values (`kind`, `type`), which the input must then carry; failing that, by
a required field only one member has (`FileWithBytes | FileWithUri`: `bytes` or `uri`).

This module replaced pydantic to cut Lambda cold starts, so it is built for speed both at import
and per call. Declaring a model only records its fields. Two generic functions implement every
rule: `_slow` builds an object (and collects the errors), `_dump_slow` dumps one. Once a class
has been used a few times (`COMPILE_AFTER`; so a cold start's first request compiles nothing),
two functions are generated for it as Python source and compiled, as `dataclasses` does: a fast
path building an object from valid input (a dict look-up and a type check or two per field),
which hands anything else (Python names, unknown fields, any error) to `_slow`, and the dump.
They are shortcuts to the same results (tests/unit/test_wire.py checks both ways agree).
`typing.dataclass_transform` gives type checkers the keyword constructors of every model.
"""

from __future__ import annotations

import copy
import json
import sys
import threading
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from typing import (
    Any,
    ClassVar,
    Literal,
    NoReturn,
    Self,
    TypedDict,
    Union,
    dataclass_transform,
    get_args,
    get_origin,
)

Loc = tuple[str | int, ...]
Error = tuple[Loc, str, str]  # where, type, message
Converter = Callable[[Any], Any]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


# The default of a required field, and what a look-up of an absent key gives.
MISSING: Any = _Missing()


# --- errors ---------------------------------------------------------------------------------------


class ErrorDetails(TypedDict):
    loc: Loc
    msg: str
    type: str


class ValidationError(ValueError):
    """Everything wrong with an input: per problem, where (`loc`: wire names and list indices
    from the object validated), what (`type`) and a sentence for people (`msg`)."""

    def __init__(self, errors: list[Error], title: str = "value") -> None:
        self._errors = errors
        self.title = title
        super().__init__(errors)

    def errors(self) -> list[ErrorDetails]:
        return [{"loc": loc, "msg": msg, "type": kind} for loc, kind, msg in self._errors]

    def error_count(self) -> int:
        return len(self._errors)

    def __str__(self) -> str:
        count = len(self._errors)
        lines = [f"{count} validation error{'' if count == 1 else 's'} for {self.title}"]
        for loc, kind, msg in self._errors:
            lines.append(".".join(str(part) for part in loc) or "(the value itself)")
            lines.append(f"  {msg} [type={kind}]")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"ValidationError({self.title!r}, {self.errors()!r})"


def _fail(kind: str, msg: str) -> NoReturn:
    raise ValidationError([((), kind, msg)])


def _nest(errors: list[Error], exc: ValidationError, prefix: Loc) -> None:
    errors.extend((prefix + loc, kind, msg) for loc, kind, msg in exc._errors)


def _quoted(values: Iterable[object]) -> str:
    """'a', 'b' or 'c': how choices are worded in messages (as pydantic did)."""
    items = [repr(value) for value in values]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]


# --- fields ---------------------------------------------------------------------------------------


class FieldInfo:
    """One field of a model: its names, type (`annotation`), default and bounds."""

    __slots__ = ("annotation", "default", "ge", "le", "min_length", "name", "wire")

    def __init__(
        self,
        *,
        default: Any = MISSING,
        wire: str | None = None,
        ge: int | None = None,
        le: int | None = None,
        min_length: int | None = None,
        name: str = "",
        annotation: Any = None,
    ) -> None:
        if isinstance(default, list | dict | set):
            raise TypeError("a mutable default would be shared by every object: use None")
        self.default = default
        self.wire = wire or ""
        self.ge = ge
        self.le = le
        self.min_length = min_length
        self.name = name
        self.annotation = annotation

    def is_required(self) -> bool:
        return self.default is MISSING

    def resolved(self, annotation: Any) -> FieldInfo:
        """This field with its annotation evaluated."""
        return FieldInfo(
            default=self.default,
            wire=self.wire,
            ge=self.ge,
            le=self.le,
            min_length=self.min_length,
            name=self.name,
            annotation=annotation,
        )

    def __repr__(self) -> str:
        default = "required" if self.default is MISSING else f"default={self.default!r}"
        return f"FieldInfo({self.name!r}, wire={self.wire!r}, {default})"


def field(
    *,
    default: Any = MISSING,
    wire: str | None = None,
    ge: int | None = None,
    le: int | None = None,
    min_length: int | None = None,
) -> Any:
    """A field with a wire name other than its name's camelCase, or with bounds: `ge` / `le`
    for an integer, `min_length` for a list."""
    return FieldInfo(default=default, wire=wire, ge=ge, le=le, min_length=min_length)


def to_camel(name: str) -> str:
    """`mime_type` -> `mimeType`; a trailing underscore (`in_`, a keyword) is dropped."""
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


# --- the base class -------------------------------------------------------------------------------


class _ModelFields:
    """`Model.model_fields`: name -> FieldInfo, in order, types resolved."""

    def __get__(self, obj: object, owner: type[WireModel]) -> dict[str, FieldInfo]:
        return dict(_resolved(owner))


@dataclass_transform(kw_only_default=True, field_specifiers=(field, FieldInfo))
class WireModel:
    """Base of every wire model (see the module docstring)."""

    # The input's fields this model does not know, by wire name: set on an object only when it
    # has some. (No __slots__ and no __getattr__: both would slow down every attribute access.)
    _extra: dict[str, Any] | None = None

    # Recorded when the class is created: name -> FieldInfo (types as written), and the keys
    # of the fast path: all wire names, or all Python names, in field order and as a set.
    __wire_fields__: ClassVar[dict[str, FieldInfo]] = {}
    __wire_keys__: ClassVar[tuple[tuple[str, ...], frozenset[str]]] = ((), frozenset())
    __name_keys__: ClassVar[tuple[tuple[str, ...], frozenset[str]]] = ((), frozenset())
    model_fields: ClassVar[dict[str, FieldInfo]] = _ModelFields()  # type: ignore[assignment]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields: dict[str, FieldInfo] = {}
        for base in reversed(cls.__mro__[1:]):
            if issubclass(base, WireModel):
                fields.update(base.__dict__.get("__wire_fields__", {}))
        # (Not inspect.get_annotations: `inspect` alone costs milliseconds to import.)
        own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
        for name, annotation in own.items():
            if _is_classvar(annotation):
                continue
            value = cls.__dict__.get(name, MISSING)
            if isinstance(value, FieldInfo):  # from field(): made for this field alone
                delattr(cls, name)  # the default lives in the FieldInfo
                value.name, value.annotation = name, annotation
                value.wire = value.wire or to_camel(name)
                fields[name] = value
            else:
                fields[name] = FieldInfo(
                    default=value, wire=to_camel(name), name=name, annotation=annotation
                )
        cls.__wire_fields__ = fields
        wires = tuple(spec.wire for spec in fields.values())
        names = tuple(fields)
        cls.__wire_keys__ = (wires, frozenset(wires))
        cls.__name_keys__ = (names, frozenset(names))
        # Until this class is used: the generating versions (a compiled parent's functions
        # would build the parent).
        for name, function in _BOOTSTRAP.items():
            setattr(cls, name, function)

    def __init__(self, **data: Any) -> None:
        cls = type(self)
        keys, keyset = cls.__name_keys__
        cls._build(data, self, keys, keyset)

    # --- per-class functions: the generic ones until the class has been used a few times,
    # then the generated ones (`_compile` replaces these in the class) ---

    @classmethod
    def _build(cls, data: dict[str, Any], into: Any, keys: Any, keyset: Any) -> Any:
        if _used(cls):
            return cls._build(data, into, keys, keyset)
        return _slow(cls, data, into)

    @classmethod
    def _v(cls, value: Any) -> Any:
        if value.__class__ is dict:
            keys, keyset = cls.__wire_keys__
            return cls._build(value, None, keys, keyset)
        return _other(cls, value)

    def _dump(self) -> dict[str, Any]:
        if _used(type(self)):
            return self._dump()
        return _dump_slow(self)

    def _copy(self) -> Any:
        if _used(type(self)):
            return self._copy()
        return _copy_slow(self)

    # --- the public API ---

    @classmethod
    def model_validate(cls, obj: object) -> Self:
        """A checked object from a JSON object (a dict); an instance of this class as it is."""
        return cls._v(obj)  # type: ignore[no-any-return]

    def dump(self) -> dict[str, Any]:
        """The JSON-ready dict of this object, as it goes on the wire."""
        return self._dump()

    def dump_json(self) -> bytes:
        """`dump()` as compact UTF-8 JSON."""
        return _encode(self._dump()).encode()

    @property
    def model_extra(self) -> dict[str, Any] | None:
        """The input's fields this model does not know, by wire name (None if there were none)."""
        return self._extra

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with `update` (Python names -> values, not validated) applied over it; names
        that are not fields become unknown fields.

        Shallow unless `deep`: the copy shares nested objects and lists with this one, which is
        safe as long as those are replaced rather than changed in place (as `lifecycle.py` does).
        """
        cls = type(self)
        values = copy.deepcopy(self.__dict__) if deep else self.__dict__.copy()
        extra: dict[str, Any] | None = values.get("_extra")
        if extra is not None and not deep:
            values["_extra"] = extra = dict(extra)  # the copy's own
        if update:
            fields = cls.__wire_fields__
            for name, value in update.items():
                if name in fields:
                    values[name] = value
                else:
                    if extra is None:
                        values["_extra"] = extra = {}
                    extra[name] = value
        new = _new(cls)
        new.__dict__ = values
        return new

    def model_dump(
        self, *, mode: str = "python", by_alias: bool = False, exclude_none: bool = False
    ) -> dict[str, Any]:
        """pydantic's `model_dump`, for code written against it. Prefer `dump()`: the same as
        `model_dump(mode="json", by_alias=True, exclude_none=True)`, and faster."""
        if mode not in ("python", "json"):
            raise ValueError(f"mode must be 'python' or 'json', not {mode!r}")
        return _generic_dump(self, mode == "json", by_alias, exclude_none)

    def model_dump_json(self, *, by_alias: bool = False, exclude_none: bool = False) -> str:
        """pydantic's `model_dump_json`; prefer `dump_json()`."""
        return _encode(_generic_dump(self, True, by_alias, exclude_none))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WireModel):
            return NotImplemented
        return type(other) is type(self) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # mutable, like pydantic's models

    def __repr__(self) -> str:
        items = [f"{k}={v!r}" for k, v in self.__dict__.items() if k != "_extra"]
        items.extend(f"{name}={value!r}" for name, value in (self._extra or {}).items())
        return f"{type(self).__name__}({', '.join(items)})"


_BOOTSTRAP = {name: WireModel.__dict__[name] for name in ("_build", "_v", "_dump", "_copy")}
_new = object.__new__


def _not_json(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# Compact JSON, non-ASCII as is. The C encoder is called directly: `JSONEncoder.encode` would
# make a new one for every call (a quarter of the time for a task).
_encode: Callable[[Any], str] = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_c_encoder = json.encoder.c_make_encoder  # type: ignore[attr-defined]
if _c_encoder is not None:  # (None without the _json accelerator)
    _chunks = _c_encoder(
        None, _not_json, json.encoder.encode_basestring, None, ":", ",", False, False, True
    )

    def _encode_c(value: Any) -> str:
        return "".join(_chunks(value, 0))

    _encode = _encode_c


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return annotation is ClassVar or get_origin(annotation) is ClassVar


# --- converters: per type, check (and normalise) a value or raise ValidationError -----------------


def _to_str(value: Any) -> str:
    if isinstance(value, str):
        return str.__str__(value)  # a plain str, not an enum member or another subclass
    _fail("string_type", "Input should be a valid string")


def _to_int(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    _fail("int_type", "Input should be a valid integer")


def _to_float(value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    _fail("float_type", "Input should be a valid number")


def _to_bool(value: Any) -> bool:
    if value is True or value is False:
        return value
    _fail("bool_type", "Input should be a valid boolean")


def _to_none(value: Any) -> None:
    if value is not None:
        _fail("none_required", "Input should be None")


def _to_list(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    _fail("list_type", "Input should be a valid list")


def _to_dict(value: Any) -> dict[Any, Any]:
    if isinstance(value, dict):
        return value
    _fail("dict_type", "Input should be a valid dictionary")


def _identity(value: Any) -> Any:
    return value


def _dict_any(value: Any) -> dict[str, Any]:
    """`dict[str, Any]`: a JSON object, copied; its values as they are."""
    if value.__class__ is not dict:
        value = _to_dict(value)
    for key in value:
        if key.__class__ is not str:
            return _odd_keys(value)
    return dict(value)


def _odd_keys(value: dict[Any, Any]) -> dict[str, Any]:
    """A dict with keys that are not plain strings: str subclasses become str, others fail."""
    bad = [key for key in value if not isinstance(key, str)]
    if bad:
        raise ValidationError([((repr(key),), "key_type", "Keys should be strings") for key in bad])
    return {str.__str__(key): item for key, item in value.items()}


def _list_str(value: Any) -> list[str]:
    """`list[str]`, copied."""
    if value.__class__ is not list:
        value = _to_list(value)
    for item in value:
        if item.__class__ is not str:
            return _items(value, _to_str)
    return list(value)


def _items(value: list[Any], convert: Converter) -> list[Any]:
    """Every item converted; every failing item reported, with its index."""
    out = []
    errors: list[Error] = []
    for index, item in enumerate(value):
        try:
            out.append(convert(item))
        except ValidationError as exc:
            _nest(errors, exc, (index,))
    if errors:
        raise ValidationError(errors)
    return out


def _list_of(convert: Converter) -> Converter:
    def to_list(value: Any) -> list[Any]:
        return _items(value if value.__class__ is list else _to_list(value), convert)

    return to_list


def _dict_of(convert: Converter) -> Converter:
    def to_dict(value: Any) -> dict[str, Any]:
        if value.__class__ is not dict:
            value = _to_dict(value)
        out = {}
        errors: list[Error] = []
        for key, item in value.items():
            if not isinstance(key, str):
                errors.append(((repr(key),), "key_type", "Keys should be strings"))
                continue
            try:
                out[str.__str__(key)] = convert(item)
            except ValidationError as exc:
                _nest(errors, exc, (key,))
        if errors:
            raise ValidationError(errors)
        return out

    return to_dict


def _optional(convert: Converter) -> Converter:
    def optional(value: Any) -> Any:
        return None if value is None else convert(value)

    return optional


def _literal(values: tuple[Any, ...]) -> Converter:
    # Keyed by type too: True == 1, and a literal 1 must not take true.
    by_value = {(value.__class__, value): value for value in values}
    message = f"Input should be {_quoted(values)}"

    def literal(value: Any) -> Any:
        if isinstance(value, str):
            key: Any = (str, str.__str__(value))
        elif isinstance(value, bool | int):
            key = (value.__class__, value)
        else:
            _fail("literal_error", message)
        found = by_value.get(key, MISSING)
        if found is MISSING:
            _fail("literal_error", message)
        return found

    return literal


def _enum(enum: type[Enum]) -> Converter:
    by_value: dict[Any, Any] = {member.value: member for member in enum}
    message = f"Input should be {_quoted(by_value)}"

    def to_enum(value: Any) -> Any:
        if isinstance(value, enum):
            return value
        if isinstance(value, str) and not isinstance(value, Enum):
            found = by_value.get(value)
            if found is not None:
                return found
        _fail("enum", message)

    return to_enum


def _describe(tp: Any) -> str:
    words = {str: "a valid string", int: "a valid integer", bool: "a valid boolean"}
    words.update({float: "a valid number", type(None): "null"})
    return words.get(tp) or str(getattr(tp, "__name__", repr(tp)))


def _first_of(members: tuple[Any, ...]) -> Converter:
    """A union of other types, tried in order (strict types keep scalars unambiguous)."""
    converters = [_converter(member) for member in members]
    message = "Input should be " + " or ".join(_describe(member) for member in members)

    def first(value: Any) -> Any:
        for convert in converters:
            try:
                return convert(value)
            except ValidationError:
                continue
        _fail("union_type", message)

    return first


def _model_union(members: tuple[type[WireModel], ...]) -> Converter:
    """A union of models: by a tag every member has (`kind`), else by a field only one member
    requires (`bytes` / `uri`), else the first member the value is valid for."""
    fields = [_resolved(model) for model in members]
    classes = frozenset(members)
    names = _quoted(model.__name__ for model in members).replace("'", "")
    not_a_model = f"Input should be a valid dictionary or instance of {names}"

    def other(value: Any, from_dict: Converter) -> Any:
        if value.__class__ in classes or isinstance(value, members):
            return value
        if isinstance(value, dict):
            return from_dict(dict(value))
        _fail("model_type", not_a_model)

    tag = _tag_field(fields)
    if tag is not None:
        table: dict[str, tuple[type[WireModel], tuple[str, ...], frozenset[str]]] = {}
        for model, model_fields in zip(members, fields, strict=True):
            for value in get_args(model_fields[tag].annotation):
                table[value] = (model, *model.__wire_keys__)
        wire = fields[0][tag].wire
        expected = ", ".join(repr(value) for value in table)
        not_found = f"Unable to extract tag using discriminator {wire!r}"

        def tagged(value: Any) -> Any:
            if value.__class__ is not dict:
                return other(value, tagged)
            found = value.get(wire, MISSING)
            if found is MISSING and tag != wire:
                found = value.get(tag, MISSING)
            route = table.get(found) if found.__class__ is str else None
            if route is None:
                if found is MISSING:
                    _fail("union_tag_not_found", not_found)
                _fail(
                    "union_tag_invalid",
                    f"Input tag {found!r} found using {wire!r} does not match any of the "
                    f"expected tags: {expected}",
                )
            model, keys, keyset = route
            return model._build(value, None, keys, keyset)

        return tagged

    required = _unique_required_fields(fields)
    if required is not None:
        routes = [
            ({spec.wire, spec.name}, model) for spec, model in zip(required, members, strict=True)
        ]
        wanted = f"Field required: {_quoted(spec.wire for spec in required)}"

        def keyed(value: Any) -> Any:
            if value.__class__ is not dict:
                return other(value, keyed)
            for names, model in routes:
                if not names.isdisjoint(value):
                    keys, keyset = model.__wire_keys__
                    return model._build(value, None, keys, keyset)
            _fail("missing", wanted)

        return keyed

    def first(value: Any) -> Any:
        errors: list[Error] = []
        for model in members:
            try:
                return model._v(value)
            except ValidationError as exc:
                _nest(errors, exc, (model.__name__,))
        raise ValidationError(errors)

    return first


def _tag_field(fields: list[dict[str, FieldInfo]]) -> str | None:
    """A field every member types as a Literal of strings, no two members sharing a value."""
    for name in fields[0]:
        seen: set[Any] = set()
        for model_fields in fields:
            spec = model_fields.get(name)
            if spec is None or get_origin(spec.annotation) is not Literal:
                break
            values = set(get_args(spec.annotation))
            if values & seen or not all(isinstance(value, str) for value in values):
                break
            seen |= values
        else:
            return name
    return None


def _unique_required_fields(fields: list[dict[str, FieldInfo]]) -> list[FieldInfo] | None:
    """Per member, a required field that no other member has (None if a member has none)."""
    chosen = []
    for index, model_fields in enumerate(fields):
        others = {name for i, f in enumerate(fields) if i != index for name in f}
        unique = [spec for name, spec in model_fields.items() if spec.is_required()]
        unique = [spec for spec in unique if spec.name not in others]
        if not unique:
            return None
        chosen.append(unique[0])
    return chosen


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, WireModel)


def _is_model_union(tp: Any) -> bool:
    origin = get_origin(tp)
    return (origin is Union or origin is types.UnionType) and all(map(_is_model, get_args(tp)))


def _model(model: type[WireModel]) -> Converter:
    def to_model(value: Any) -> Any:
        return model._v(value)

    return to_model


_SCALARS: dict[Any, Converter] = {
    str: _to_str,
    int: _to_int,
    float: _to_float,
    bool: _to_bool,
    type(None): _to_none,
}
_converters: dict[Any, Converter] = {}
_lock = threading.RLock()


def _converter(tp: Any) -> Converter:
    """The converter of a type annotation (made once per type)."""
    try:
        return _converters[tp]
    except KeyError:
        pass
    with _lock:
        convert = _make_converter(tp)
        _converters[tp] = convert
    return convert


def _make_converter(tp: Any) -> Converter:
    if tp is Any or tp is object:
        return _identity
    if tp is None:  # as in annotations, None stands for its type
        return _to_none
    if tp in _SCALARS:
        return _SCALARS[tp]
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _enum(tp)
    if _is_model(tp):
        return _model(tp)
    origin, args = get_origin(tp), get_args(tp)
    if origin is typing.Annotated:
        return _converter(args[0])
    if origin is Literal:
        return _literal(args)
    if origin is Union or origin is types.UnionType:
        if Any in args:
            return _identity
        members = tuple(arg for arg in args if arg is not type(None))
        if len(members) == 1:
            inner = _converter(members[0])
        elif all(map(_is_model, members)):
            inner = _model_union(members)
        else:
            inner = _first_of(members)
        return _optional(inner) if len(members) < len(args) else inner
    if origin is list or tp is list:
        item = args[0] if args else Any
        return _list_str if item is str else _list_of(_converter(item))
    if origin is dict or tp is dict:
        if args and args[0] is not str:
            raise TypeError(f"JSON object keys are strings: {tp!r} cannot be a field type")
        value = args[1] if args else Any
        return _dict_any if value is Any else _dict_of(_converter(value))
    raise TypeError(f"wire models do not support the type {tp!r}")


def _field_converter(spec: FieldInfo) -> Converter:
    """The converter of a field: its type's, then its bounds."""
    convert = _converter(spec.annotation)
    if spec.ge is None and spec.le is None and spec.min_length is None:
        return convert
    ge, le, min_length = spec.ge, spec.le, spec.min_length

    def bounded(value: Any) -> Any:
        value = convert(value)
        if value is None:
            return value
        if ge is not None and value < ge:
            _fail("greater_than_equal", f"Input should be greater than or equal to {ge}")
        if le is not None and value > le:
            _fail("less_than_equal", f"Input should be less than or equal to {le}")
        if min_length is not None and len(value) < min_length:
            items = "item" if min_length == 1 else "items"
            _fail("too_short", f"List should have at least {min_length} {items}, not {len(value)}")
        return value

    return bounded


def validate(tp: Any, value: Any) -> Any:
    """`value` checked against a type: a model, a union of models (`StreamResult`),
    `list[Model]`, a scalar type, ... Raises ValidationError."""
    try:
        return _converter(tp)(value)
    except ValidationError as exc:
        exc.title = _type_name(tp)
        raise


def _type_name(tp: Any) -> str:
    if isinstance(tp, type):
        return tp.__name__
    if get_origin(tp) is Union or get_origin(tp) is types.UnionType:
        return " | ".join(_type_name(member) for member in get_args(tp))
    return repr(tp)


# --- the generic path: every rule, every error ----------------------------------------------------


def _slow(cls: type[WireModel], data: dict[Any, Any], into: Any) -> Any:
    """`data` as a `cls`: every rule, every error. The generated fast path (`_build`) hands
    over to this whenever the input is not a plain valid object under wire names (or Python
    names, for the constructor), and a class not yet compiled uses only this."""
    plan = _plan(cls)
    fields = plan.fields
    errors: list[Error] = []
    by_key: dict[str, Any] = {}
    extra: dict[str, Any] | None = None
    for key, value in data.items():
        if not isinstance(key, str):
            errors.append(((repr(key),), "key_type", "Keys should be strings"))
            continue
        name = plan.names.get(key)
        if name is None:
            extra = {} if extra is None else extra
            extra[key] = value
        elif name in by_key:
            spec = fields[name]
            errors.append(
                (
                    (spec.wire,),
                    "duplicate_field",
                    f"Field given under both of its names, {spec.wire!r} and {spec.name!r}",
                )
            )
        else:
            by_key[name] = value
    values: dict[str, Any] = {}
    for name, convert in plan.converters:
        value = by_key.get(name, MISSING)
        if value is MISSING:
            value = fields[name].default
            if value is MISSING:
                errors.append(((fields[name].wire,), "missing", "Field required"))
        else:
            try:
                value = convert(value)
            except ValidationError as exc:
                _nest(errors, exc, (fields[name].wire,))
        values[name] = value
    if errors:
        raise ValidationError(errors, cls.__name__)
    if into is None:
        into = _new(cls)
    for name, value in values.items():
        setattr(into, name, value)
    if extra:
        into._extra = extra
    return into


def _other(cls: type[WireModel], value: Any) -> Any:
    """A model field given something other than a plain dict."""
    if isinstance(value, cls):
        return value
    if isinstance(value, dict):
        keys, keyset = cls.__wire_keys__
        return cls._build(dict(value), None, keys, keyset)
    _fail("model_type", f"Input should be a valid dictionary or instance of {cls.__name__}")


# --- dumping --------------------------------------------------------------------------------------


# Values `_json_copy` returns as they are (by exact class: subclasses such as str enums convert).
_AS_IS = frozenset({str, int, bool, float, type(None)})


def _json_copy(value: Any) -> Any:
    """A JSON-ready copy of a free-form value (`dict[str, Any]`, `Any`, unknown fields)."""
    kind = value.__class__
    if kind in _AS_IS:
        return value
    # Scalar items are tested inline, not by a call each, and a dict is filled by a loop, not a
    # comprehension (a call of its own before 3.12): free-form values are mostly small dicts of
    # scalars, and the memory store copies every record's `internal` on every write and read.
    if kind is dict:
        out: dict[Any, Any] = {}
        for key, item in value.items():
            out[key] = item if item.__class__ in _AS_IS else _json_copy(item)
        return out
    if kind is list or kind is tuple:
        return [item if item.__class__ in _AS_IS else _json_copy(item) for item in value]
    if isinstance(value, WireModel):
        return value._dump()
    if isinstance(value, Enum):
        return _json_copy(value.value)
    if isinstance(value, dict):
        return {key: _json_copy(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_copy(item) for item in value]
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int | float):
        return value
    # As json.dumps would: the other stores serialise, so the memory store must refuse too.
    raise TypeError(f"Object of type {kind.__name__} is not JSON serializable")


def _dump_slow(model: WireModel) -> dict[str, Any]:
    """What the generated `_dump` does, for a class not yet compiled."""
    out: dict[str, Any] = {}
    for name, wire, kind in _plan(type(model)).dumps:
        value = getattr(model, name)
        if value is not None:
            if kind is _PLAIN:
                out[wire] = value
            elif kind is _ENUM:
                out[wire] = value if value.__class__ is str else value._value_
            elif kind is _MODEL:
                out[wire] = value._dump()
            elif kind is _MODELS:
                out[wire] = [item._dump() for item in value]
            elif kind is _STRS:
                out[wire] = list(value)
            else:
                out[wire] = _json_copy(value)
    if model._extra:
        for key, value in model._extra.items():
            if value is not None:
                out[key] = _json_copy(value)
    return out


_M = typing.TypeVar("_M", bound=WireModel)


def deep_copy(model: _M) -> _M:
    """A copy of `model` that shares nothing mutable with it: what `model_validate` of its
    `dump()` gives (free-form values as JSON has them: enums as their values, tuples as lists,
    models as dicts; unknown fields that are None dropped), without the dict in between.

    For keeping objects whose owner may change them in place (`store/memory.py`): several
    times cheaper than a JSON round trip, and than `model_copy(deep=True)` (`copy.deepcopy`).
    """
    return model._copy()  # type: ignore[no-any-return]


def json_copy(value: Any) -> Any:
    """A copy of a free-form JSON value (`dict[str, Any]`) sharing nothing mutable with it, as
    `deep_copy` copies a model's free-form fields."""
    return _json_copy(value)


def _copy_slow(model: WireModel) -> Any:
    """What the generated `_copy` does, for a class not yet compiled."""
    cls = type(model)
    new = _new(cls)
    for name, _, kind in _plan(cls).dumps:
        value = getattr(model, name)
        if value is not None:
            if kind is _MODEL:
                value = value._copy()
            elif kind is _MODELS:
                value = [item._copy() for item in value]
            elif kind is _STRS:
                value = list(value)
            elif kind is _JSON:
                value = _json_copy(value)
        setattr(new, name, value)
    if model._extra:
        extra = {key: _json_copy(value) for key, value in model._extra.items() if value is not None}
        if extra:
            new._extra = extra
    return new


# How a field's value (not None) is written, by its type; `_DUMP_EXPRESSIONS` is the same in
# generated code.
_PLAIN, _ENUM, _MODEL, _MODELS, _STRS, _JSON = "plain", "enum", "model", "models", "strs", "json"
# How `_copy` copies a field's value (not None), by the same kinds; None where it is shared.
_COPY_EXPRESSIONS = {
    _PLAIN: None,
    _ENUM: None,
    _MODEL: "v._copy()",
    _MODELS: "[x._copy() for x in v]",
    _STRS: "list(v)",
    _JSON: "_json_copy(v)",
}
_DUMP_EXPRESSIONS = {
    _PLAIN: "v",
    _ENUM: "v if v.__class__ is str else v._value_",
    _MODEL: "v._dump()",
    _MODELS: "[x._dump() for x in v]",
    _STRS: "list(v)",
    _JSON: "_json_copy(v)",
}


def _dump_kind(tp: Any) -> str:
    tp, _ = _non_none(tp)
    if tp in (str, int, bool, float) or (
        get_origin(tp) is Literal and all(isinstance(value, str | int) for value in get_args(tp))
    ):
        return _PLAIN
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _ENUM
    if _is_model(tp) or _is_model_union(tp):
        return _MODEL
    if get_origin(tp) is list and get_args(tp):
        item = get_args(tp)[0]
        if _is_model(item) or _is_model_union(item):
            return _MODELS
        if item is str:
            return _STRS
    return _JSON


def _generic_dump(
    model: WireModel, json_mode: bool, by_alias: bool, exclude_none: bool
) -> dict[str, Any]:
    def convert(value: Any) -> Any:
        if isinstance(value, WireModel):
            return _generic_dump(value, json_mode, by_alias, exclude_none)
        if isinstance(value, list | tuple):
            return [convert(item) for item in value]
        if isinstance(value, dict):
            return {key: convert(item) for key, item in value.items()}
        if json_mode and isinstance(value, Enum):
            return value.value
        return value

    out: dict[str, Any] = {}
    for name, spec in type(model).__wire_fields__.items():
        value = getattr(model, name, None)
        if value is None and exclude_none:
            continue
        out[spec.wire if by_alias else name] = convert(value)
    for name, value in (model._extra or {}).items():
        if value is None and exclude_none:
            continue
        out[name] = convert(value)
    return out


# --- per-class compilation ------------------------------------------------------------------------


class _Plan:
    """What the generic functions (`_slow`, `_dump_slow`) need of a class: its fields, every
    accepted key -> field name, and per field (in order) its converter and how it is dumped."""

    __slots__ = ("converters", "dumps", "fields", "names")

    def __init__(self, fields: dict[str, FieldInfo]) -> None:
        self.fields = fields
        self.names: dict[str, str] = {}
        for spec in fields.values():
            self.names[spec.name] = spec.name
            self.names[spec.wire] = spec.name
        self.converters = [(spec.name, _field_converter(spec)) for spec in fields.values()]
        self.dumps = [
            (spec.name, spec.wire, _dump_kind(spec.annotation)) for spec in fields.values()
        ]


def _plan(cls: type[WireModel]) -> _Plan:
    plan: _Plan | None = cls.__dict__.get("_plan")
    if plan is None:
        with _lock:
            plan = cls.__dict__.get("_plan") or _Plan(_resolved(cls))
            cls._plan = plan  # type: ignore[attr-defined]
    return plan


# A class's functions are generated and compiled once it has been used this many times: a
# Lambda's first request (cold start) runs on the generic functions and compiles nothing.
COMPILE_AFTER = 8
_uses: dict[type, int] = {}


def _used(cls: type[WireModel]) -> bool:
    """Count a use of `cls`; True once its compiled functions are in place."""
    count = _uses.get(cls, 0) + 1
    _uses[cls] = count
    if count < COMPILE_AFTER:
        return False
    _compiled(cls)
    return True


def _resolved(cls: type[WireModel]) -> dict[str, FieldInfo]:
    """The class's fields, string annotations (`from __future__ import annotations`) evaluated
    in the module (and class) where each was written."""
    found: dict[str, FieldInfo] | None = cls.__dict__.get("_resolved")
    if found is not None:
        return found
    resolved = {}
    for name, spec in cls.__wire_fields__.items():
        annotation = spec.annotation
        if isinstance(annotation, str):
            owner = next(
                c
                for c in cls.__mro__
                if name in c.__dict__.get("__annotations__", {})  # noqa: RUF063
            )
            module = sys.modules.get(owner.__module__)
            module_names = dict(vars(module)) if module is not None else {}
            spec = spec.resolved(eval(annotation, module_names, dict(vars(owner))))
        resolved[name] = spec
    cls._resolved = resolved  # type: ignore[attr-defined]
    return resolved


def _compiled(cls: type[WireModel]) -> type[WireModel]:
    """`cls`, its generated functions in place."""
    if "_v" not in cls.__dict__ or cls.__dict__["_v"] is _BOOTSTRAP["_v"]:
        with _lock:
            if cls.__dict__.get("_v") in (None, _BOOTSTRAP["_v"]):
                _compile(cls)
    return cls


def _compile(cls: type[WireModel]) -> None:
    fields = _resolved(cls)
    namespace: dict[str, Any] = {}
    source = _source(cls, list(fields.values()), namespace)
    exec(compile(source, f"<wire model {cls.__module__}.{cls.__qualname__}>", "exec"), namespace)
    cls._build = staticmethod(namespace["_build"])  # type: ignore[method-assign]
    cls._dump = namespace["_dump"]  # type: ignore[method-assign]
    cls._copy = namespace["_copy"]  # type: ignore[method-assign]
    keys, keyset = cls.__wire_keys__
    build = namespace["_build"]

    def _v(value: Any) -> Any:
        if value.__class__ is dict:
            return build(value, None, keys, keyset)
        return _other(cls, value)

    _plan(cls)
    cls._v = staticmethod(_v)  # type: ignore[method-assign]  # last: marks it done


def _non_none(tp: Any) -> tuple[Any, bool]:
    """(the type without None, whether None is allowed)."""
    origin = get_origin(tp)
    if origin is Union or origin is types.UnionType:
        args = get_args(tp)
        members = tuple(arg for arg in args if arg is not type(None))
        if len(members) < len(args):
            return (members[0] if len(members) == 1 else Union[members]), True  # noqa: UP007
    return tp, False


# What makes the fast path hand over to `_slow`: an absent required key (KeyError), an
# unhashable value where a set of values is looked in (TypeError), a nested error.
_SLOW = (KeyError, TypeError, ValidationError)


def _source(cls: type[WireModel], fields: list[FieldInfo], ns: dict[str, Any]) -> str:
    """The generated `_build` (fast path) and `_dump` of `cls`.

    `_build(data, into, keys, keyset)` reads field i under `keys[i]` (the wire names, or the
    Python names for the constructor) and takes only what it can check in a line or two; any
    surprise sends the whole input to `_slow`, which gives the same result or the errors.
    """
    ns.update(
        _CLS=cls,
        _new=_new,
        _slow=_slow,
        _SLOW=_SLOW,
        _json_copy=_json_copy,
        _dict_any=_dict_any,
        _list_str=_list_str,
    )
    lines = [
        "def _build(data, into, keys, keyset):",
        "    if not keyset.issuperset(data):",
        "        return _slow(_CLS, data, into)",
        "    try:",
        "        get = data.get",
    ]
    for index, spec in enumerate(fields):
        value = f"v{index}"
        if spec.is_required():
            lines.append(f"        {value} = data[keys[{index}]]")
        else:
            ns[f"D{index}"] = spec.default
            lines.append(f"        {value} = get(keys[{index}], D{index})")
        lines.extend("        " + line.replace("$", value) for line in _check(spec, index, ns))
    lines += [
        "    except _SLOW:",
        "        return _slow(_CLS, data, into)",
        "    if into is None:",
        "        into = _new(_CLS)",
    ]
    # Attribute stores, in field order: objects then share their keys (compact, fast).
    lines.extend(f"    into.{spec.name} = v{index}" for index, spec in enumerate(fields))
    lines += [
        "    return into",
        "",
        "def _dump(self):",
        "    out = {}",
    ]
    for spec in fields:
        lines.append(f"    v = self.{spec.name}")
        lines.append("    if v is not None:")
        expression = _DUMP_EXPRESSIONS[_dump_kind(spec.annotation)]
        lines.append(f"        out[{spec.wire!r}] = {expression}")
    lines += [
        "    if self._extra:",
        "        for k, v in self._extra.items():",
        "            if v is not None:",
        "                out[k] = _json_copy(v)",
        "    return out",
        "",
        "def _copy(self):",
        "    new = _new(_CLS)",
    ]
    # Attribute stores in field order, as in `_build`.
    for spec in fields:
        copy_expression = _COPY_EXPRESSIONS[_dump_kind(spec.annotation)]
        if copy_expression is None:
            lines.append(f"    new.{spec.name} = self.{spec.name}")
        else:
            lines.append(f"    v = self.{spec.name}")
            lines.append(f"    new.{spec.name} = None if v is None else {copy_expression}")
    lines += [
        "    if self._extra:",
        "        e = {k: _json_copy(v) for k, v in self._extra.items() if v is not None}",
        "        if e:",
        "            new._extra = e",
        "    return new",
    ]
    return "\n".join(lines) + "\n"


def _check(spec: FieldInfo, index: int, ns: dict[str, Any]) -> list[str]:
    """Fast-path lines for field `index`, whose value is `$`: they leave `$` as the field's
    value, or raise one of `_SLOW` (a `ValidationError` when they cannot tell)."""
    tp, optional = _non_none(spec.annotation)
    if tp is Any or tp is object:
        return []
    ns[f"C{index}"] = _field_converter(spec)
    slow = f"raise KeyError({index})"
    if tp is str:
        test = "$.__class__ is not str"
    elif tp is bool:
        test = "$ is not True and $ is not False"
    elif tp is int:
        test = "$.__class__ is not int"
        if spec.ge is not None:
            test += f" or $ < {spec.ge!r}"
        if spec.le is not None:
            test += f" or $ > {spec.le!r}"
    elif get_origin(tp) is Literal and all(isinstance(v, str) for v in get_args(tp)):
        ns[f"L{index}"] = frozenset(get_args(tp))
        test = f"$.__class__ is not str or $ not in L{index}"
    elif isinstance(tp, type) and issubclass(tp, Enum):
        # Only str values are looked up (an int 1 would find a member valued True).
        ns[f"E{index}"] = {member.value: member for member in tp}
        line = f"$ = E{index}[$] if $.__class__ is str else C{index}($)"
        return _optional_lines([line]) if optional else [line]
    elif _is_model(tp):
        ns[f"T{index}"] = tp
        ns[f"K{index}"], ns[f"S{index}"] = tp.__wire_keys__
        lines = [
            "if $.__class__ is dict:",
            f"    $ = T{index}._build($, None, K{index}, S{index})",
            f"elif $.__class__ is not T{index}:",
            f"    $ = C{index}($)",
        ]
        return lines  # None is not a dict nor a T: C (optional) takes it
    elif get_origin(tp) is list and get_args(tp) and _is_model(get_args(tp)[0]):
        item = get_args(tp)[0]
        ns[f"T{index}"] = item
        ns[f"K{index}"], ns[f"S{index}"] = item.__wire_keys__
        ns[f"I{index}"] = _converter(item)
        build = (
            f"T{index}._build(x, None, K{index}, S{index}) if x.__class__ is dict else I{index}(x)"
        )
        lines = [f"if $.__class__ is not list: {slow}", f"$ = [{build} for x in $]"]
        if spec.min_length is not None:
            lines.append(f"if len($) < {spec.min_length}: {slow}")
        return _optional_lines(lines) if optional else lines
    elif get_origin(tp) is list and get_args(tp) and _is_model_union(get_args(tp)[0]):
        ns[f"U{index}"] = _converter(get_args(tp)[0])
        lines = [f"if $.__class__ is not list: {slow}", f"$ = [U{index}(x) for x in $]"]
        if spec.min_length is not None:
            lines.append(f"if len($) < {spec.min_length}: {slow}")
        return _optional_lines(lines) if optional else lines
    elif tp == list[str] and spec.min_length is None:
        return ["if $ is not None: $ = _list_str($)"] if optional else ["$ = _list_str($)"]
    elif tp == dict[str, Any]:
        return ["if $ is not None: $ = _dict_any($)"] if optional else ["$ = _dict_any($)"]
    else:
        return [f"$ = C{index}($)"]
    if optional:
        test = f"$ is not None and ({test})"
    return [f"if {test}: {slow}"]


def _optional_lines(lines: list[str]) -> list[str]:
    return ["if $ is not None:", *("    " + line for line in lines)]
