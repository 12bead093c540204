"""The comparison, hash and repr of the kit's frozen public dataclasses, written once.

`@dataclass` compiles each method it generates with `exec` when the class is made: for the
public dataclasses on a cold start's path (`Settings` with its 68 fields, `AwsSettings`,
`Context`, `DirectContext`, `Identity`, `RequestView`) about 6 ms of import, 40% of it their
`__eq__`, `__hash__` and `__repr__`, which no request calls. Those classes are
`@dataclass(frozen=True, eq=False, repr=False)` subclasses of `DataclassMethods`, whose methods
give what the generated ones give, from `dataclasses.fields` on the (rare) call:

- `==` compares two instances of the same class by the values of their `compare` fields, in
  order (another class: NotImplemented);
- `hash()` hashes the values of the fields dataclasses hashes (`hash`, else `compare`);
- `repr()` is `ClassName(field=value, ...)` over the `repr` fields, recursion shown as `...`.

To `dataclasses.fields`, `replace`, `asdict` and `is_dataclass` they are ordinary dataclasses.
Only for frozen classes: a mutable dataclass with `eq` is unhashable, which this is not.
"""

from __future__ import annotations

import reprlib
from dataclasses import Field, fields
from typing import Any


class DataclassMethods:
    """`__eq__`, `__hash__` and `__repr__` for a `@dataclass(frozen=True, eq=False, repr=False)`
    subclass, as dataclasses would generate them (see the module docstring)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return _values(self, _compared) == _values(other, _compared)

    def __hash__(self) -> int:
        return hash(_values(self, _hashed))

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in _fields(self) if f.repr)
        return f"{self.__class__.__qualname__}({shown})"


def _fields(value: object) -> tuple[Field[Any], ...]:
    return fields(value)  # type: ignore[arg-type]


def _compared(f: Field[Any]) -> bool:
    return f.compare


def _hashed(f: Field[Any]) -> bool:
    # dataclasses' rule: a field's `hash`, else its `compare`.
    return bool(f.compare if f.hash is None else f.hash)


def _values(value: object, chosen: Any) -> tuple[Any, ...]:
    return tuple(getattr(value, f.name) for f in _fields(value) if chosen(f))
