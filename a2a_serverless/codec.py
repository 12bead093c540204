"""JSON in and out of the protocol models (msgspec), and the one ValidationError they raise.

Every model is a msgspec Struct (`models.py`). This module holds what is built once per type and
shared: a JSON decoder per target type (decoding straight from bytes, no dict in between), one
encoder, `convert` for values that already are Python objects (a REST body after its proto-JSON
translation, a stored document), and the translation of msgspec's errors into our
`ValidationError`, which names the field (`loc`) the way the transports report it
(`data.errors[].field` = `message.parts.0.text`).

msgspec replaced a home-made model layer: decoding + validating + dumping a `message/send` body
from bytes measured 1.0 us against 9.2 us (and 5.6 us with pydantic), importing it costs about
5 ms and it adds about 0.2 MiB to a Lambda zip.

Strictness is msgspec's: JSON types exactly (an `int` field never takes a bool or a float, a
string never a number), `NaN` / `Infinity` and lone surrogate escapes are not JSON, unknown
object members are ignored.
"""

from __future__ import annotations

import re
from typing import Any, TypedDict, TypeVar

import msgspec

from .exceptions import FormatError

T = TypeVar("T")
Loc = tuple[str | int, ...]


class ErrorDetails(TypedDict):
    loc: Loc
    msg: str
    type: str


class ValidationError(FormatError):
    """An input that does not fit a model: where (`loc`: wire names and list indices from the
    value validated), what (`type`) and a sentence for people (`msg`). msgspec stops at the
    first problem, so there is one."""

    def __init__(self, loc: Loc, msg: str, kind: str, title: str = "value") -> None:
        self.loc = loc
        self.msg = msg
        self.kind = kind
        self.title = title
        super().__init__(f"{title}: {'.'.join(map(str, loc)) or '(the value itself)'}: {msg}")

    def errors(self) -> list[ErrorDetails]:
        return [{"loc": self.loc, "msg": self.msg, "type": self.kind}]

    def error_count(self) -> int:
        return 1


# The patterns are compiled on first use, by re's own cache: only a request that does not
# validate needs them.
# "Expected `str`, got `int` - at `$.message.parts[0].text`"
_AT = r"(?s)^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$"
_STEP = r"\.([^.\[]+)|\[(\d+)\]|\[\.\.\.\]"
_MISSING_FIELD = r"^Object missing required field `([^`]+)`$"
# A model's own check (`__post_init__`) may name a field below where msgspec reports it:
# "file.bytes: must be base64" raised while checking a FilePart.
_OWN_FIELD = r"(?s)^([A-Za-z_][\w.]*): (.+)$"


def validation_error(exc: msgspec.ValidationError, title: str = "value") -> ValidationError:
    """Our ValidationError for one of msgspec's (its message holds the path as `$.a[0].b`)."""
    match = re.match(_AT, str(exc))
    assert match is not None  # the pattern matches any text
    msg = match.group("msg")
    loc: list[str | int] = []
    for name, index in re.findall(_STEP, match.group("path") or ""):
        if name:
            loc.append(name)
        elif index:
            loc.append(int(index))
    kind = "type_error" if msg.startswith("Expected") else "value_error"
    if missing := re.match(_MISSING_FIELD, msg):
        loc.append(missing.group(1))
        msg, kind = "Field required", "missing"
    elif own := re.match(_OWN_FIELD, msg):
        loc.extend(own.group(1).split("."))
        msg = own.group(2)
    return ValidationError(tuple(loc), msg, kind, title)


def _title(tp: Any) -> str:
    return getattr(tp, "__name__", None) or repr(tp)


_DECODERS: dict[Any, msgspec.json.Decoder[Any]] = {}
ENCODER = msgspec.json.Encoder()


def decoder(tp: type[T]) -> msgspec.json.Decoder[T]:
    """The JSON decoder for `tp` (a model, a union of models, `list[Model]`, ...), built once."""
    found = _DECODERS.get(tp)
    if found is None:
        found = _DECODERS[tp] = msgspec.json.Decoder(tp)
    return found


def decode(data: bytes | str, tp: type[T]) -> T:
    """`data` (JSON text) decoded as `tp`. Raises ValidationError if it does not fit `tp`, and
    msgspec.DecodeError (a ValueError) if it is not JSON."""
    try:
        return decoder(tp).decode(data)
    except msgspec.ValidationError as exc:
        raise validation_error(exc, _title(tp)) from None


def convert(value: Any, tp: type[T]) -> T:
    """`value` (Python objects as JSON gives them, or models) checked and converted to `tp`.
    Raises ValidationError."""
    try:
        return msgspec.convert(value, tp)
    except msgspec.ValidationError as exc:
        raise validation_error(exc, _title(tp)) from None


def encode(value: Any) -> bytes:
    """Compact UTF-8 JSON of models and JSON values."""
    return ENCODER.encode(value)


def to_builtins(value: Any) -> Any:
    """Models as JSON-ready dicts (wire names, defaults left out), enums as their values."""
    return msgspec.to_builtins(value)


def deep_copy(value: T) -> T:
    """A copy of a model (or JSON value) sharing nothing mutable with it, through its JSON form:
    also refuses what JSON cannot hold, as the stores that write JSON do."""
    return decoder(type(value)).decode(ENCODER.encode(value))
