"""The kit's public dataclasses, made without compiling a method at import.

`@dataclass` compiles each method it generates with `exec` when the class is made: for the
public dataclasses on a cold start's path (`Settings` with its 68 fields, `AwsSettings`,
`GcpSettings`, `Agent`, `Context`, `DirectContext`, `Identity`, `RequestView`) about 8 ms of
import, most of it their `__init__`, `__setattr__` and `__delattr__` (frozen) and the rest their
`__eq__`, `__hash__` and `__repr__`. `@frozen_dataclass` (and `@mutable_dataclass`, for one
whose instances change) makes such a class a dataclass with none of them generated
(`dataclasses.dataclass(init=False, eq=False, repr=False)`, which compiles nothing), and
`DataclassMethods`, its base, gives what the generated ones give:

- `__init__` takes the fields as dataclasses' would (the `init` fields, positional in order or
  by keyword; defaults and default factories; `__post_init__` called after), with its
  TypeErrors for a missing, unexpected or repeated argument;
- frozen: assigning or deleting an attribute raises `dataclasses.FrozenInstanceError`, as a
  frozen dataclass's instance does (copy and pickle restore their state around it);
- `==` compares two instances of the same class by the values of their `compare` fields, in
  order (another class: NotImplemented);
- `hash()` hashes the values of the fields dataclasses hashes (`hash`, else `compare`); a
  mutable one is unhashable, as a dataclass with `eq` is;
- `repr()` is `ClassName(field=value, ...)` over the `repr` fields, recursion shown as `...`.

To `dataclasses.fields`, `replace`, `asdict` and `is_dataclass`, to `inspect.signature` (and so
`help()` and editors that ask at run time: the signature a generated `__init__` would have, made
when first asked), and to type checkers (PEP 681's `dataclass_transform`), they are ordinary
dataclasses; `__dataclass_params__` says `init`,
`repr`, `eq` and whether `frozen`. The per-class plan `__init__` follows is made on the first
instance.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, field, fields
from typing import Any, NoReturn, TypeVar, dataclass_transform, overload

T = TypeVar("T")


@overload
def frozen_dataclass(cls: type[T], /) -> type[T]: ...


@overload
def frozen_dataclass(*, slots: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def frozen_dataclass(cls: type[T] | None = None, /, *, slots: bool = False) -> Any:
    """`@dataclass(frozen=True)` for a subclass of `DataclassMethods`, with no method compiled
    (see the module docstring). `slots=True` as dataclasses' own."""

    def make(cls: type[T]) -> type[T]:
        return _made(cls, frozen=True, slots=slots)

    return make if cls is None else make(cls)


@dataclass_transform(field_specifiers=(field, Field))
def mutable_dataclass(cls: type[T], /) -> type[T]:
    """`@dataclass` for a subclass of `DataclassMethods`, with no method compiled (see the
    module docstring)."""
    return _made(cls, frozen=False, slots=False)


def _made(cls: type[T], *, frozen: bool, slots: bool) -> type[T]:
    if not issubclass(cls, DataclassMethods):
        raise TypeError(f"{cls.__qualname__}: such a dataclass subclasses DataclassMethods")
    made = dataclass(cls, init=False, repr=False, eq=False, slots=slots)
    if frozen:
        made.__setattr__ = _frozen_setattr  # type: ignore[method-assign]
        made.__delattr__ = _frozen_delattr  # type: ignore[method-assign]
    else:
        made.__hash__ = None  # type: ignore[assignment]  # mutable with eq: as dataclasses does
    # What it is to anyone who asks (and to a dataclass subclassing it): its methods are
    # DataclassMethods'.
    params = made.__dataclass_params__  # type: ignore[attr-defined]
    params.init = params.repr = params.eq = True
    params.frozen = frozen
    made.__signature__ = _INIT_SIGNATURE  # type: ignore[attr-defined]
    return made


class _FactoryDefault:
    """A default factory's place in a signature, shown as dataclasses' generated one shows it."""

    def __repr__(self) -> str:
        return "<factory>"


class _InitSignature:
    """`cls.__signature__`: what `inspect.signature(cls)` reads before `__init__` (here the
    shared `*args, **kwargs`): the parameters a generated `__init__` would take, in its order
    (positional fields, then keyword-only ones). Made on first use: `inspect` is not imported
    for it, and most processes never ask."""

    def __init__(self) -> None:
        self._made: dict[type, Any] = {}

    def __get__(self, instance: object, owner: type) -> Any:
        signature = self._made.get(owner)
        if signature is None:
            signature = self._made[owner] = _signature_of(owner)
        return signature


def _signature_of(cls: type) -> Any:
    import inspect  # on first use (help(), an editor), not when the class is made

    positional: list[inspect.Parameter] = []
    keyword_only: list[inspect.Parameter] = []
    for f in fields(cls):
        if not f.init:
            continue
        if f.default_factory is not MISSING:
            default: Any = _FactoryDefault()
        else:
            default = inspect.Parameter.empty if f.default is MISSING else f.default
        kind = (
            inspect.Parameter.KEYWORD_ONLY if f.kw_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
        (keyword_only if f.kw_only else positional).append(
            inspect.Parameter(f.name, kind, default=default, annotation=f.type)
        )
    return inspect.Signature([*positional, *keyword_only], return_annotation=None)


_INIT_SIGNATURE = _InitSignature()


def _frozen_setattr(self: object, name: str, value: Any) -> NoReturn:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> NoReturn:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


class _Missing:
    """A required field's place in an `_InitPlan` template."""

    __slots__ = ()


_REQUIRED = _Missing()


class _InitPlan:
    """How `DataclassMethods.__init__` fills one class's fields."""

    __slots__ = ("factories", "names", "positional", "post_init", "required", "slotted", "template")

    def __init__(self, cls: type) -> None:
        # Every field __init__ sets, in field order: its default, a factory's marker, or
        # _REQUIRED; `names` are those it takes as arguments.
        self.template: dict[str, Any] = {}
        self.factories: list[tuple[str, Callable[[], Any]]] = []
        self.required: list[str] = []
        self.names: set[str] = set()
        positional: list[str] = []
        # As dataclasses' own: a field __init__ does not take, with a plain default, is read from
        # the class attribute, which a class with slots does not have.
        self.slotted = slotted = "__slots__" in cls.__dict__
        for f in fields(cls):
            if f.default_factory is not MISSING:
                self.template[f.name] = f.default_factory
                self.factories.append((f.name, f.default_factory))
            elif f.default is not MISSING:
                if f.init or slotted:
                    self.template[f.name] = f.default
            elif f.init:
                self.template[f.name] = _REQUIRED
                self.required.append(f.name)
            if f.init:
                self.names.add(f.name)
                if not f.kw_only:
                    positional.append(f.name)
        self.positional = tuple(positional)
        self.post_init = hasattr(cls, "__post_init__")


_PLANS: dict[type, _InitPlan] = {}


class DataclassMethods:
    """`__init__`, `__eq__`, `__hash__` and `__repr__` for a `@frozen_dataclass` or
    `@mutable_dataclass` class, as dataclasses would generate them (see the module docstring)."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = self.__class__
        plan = _PLANS.get(cls) or _PLANS.setdefault(cls, _InitPlan(cls))
        if args:
            kwargs = _with_positional(cls, plan, args, kwargs)
        if not plan.names.issuperset(kwargs):
            unexpected = next(name for name in kwargs if name not in plan.names)
            raise TypeError(
                f"{cls.__qualname__}.__init__() got an unexpected keyword argument {unexpected!r}"
            )
        values = {**plan.template, **kwargs}
        for name, factory in plan.factories:
            if name not in kwargs:
                values[name] = factory()
        for name in plan.required:
            if values[name] is _REQUIRED:
                _missing(cls, plan, values)
        if plan.slotted:
            for name, value in values.items():
                object.__setattr__(self, name, value)
        else:
            self.__dict__.update(values)
        if plan.post_init:
            self.__post_init__()  # type: ignore[attr-defined]

    def __setstate__(self, state: Any) -> None:
        # copy and pickle: the state (a __dict__, or slots' (None, {name: value})) set back,
        # past a frozen class's __setattr__.
        attributes, slot_values = state if isinstance(state, tuple) else (state, None)
        for values in (attributes, slot_values):
            for name, value in (values or {}).items():
                object.__setattr__(self, name, value)

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


def _with_positional(
    cls: type, plan: _InitPlan, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    if len(args) > len(plan.positional):
        # Python's own wording, `self` counted.
        most = len(plan.positional) + 1
        least = sum(1 for name in plan.positional if name in plan.required) + 1
        takes = f"from {least} to {most}" if least < most else str(most)
        raise TypeError(
            f"{cls.__qualname__}.__init__() takes {takes} positional arguments but "
            f"{len(args) + 1} were given"
        )
    named = dict(zip(plan.positional, args, strict=False))
    for name in kwargs:
        if name in named:
            raise TypeError(
                f"{cls.__qualname__}.__init__() got multiple values for argument {name!r}"
            )
    return named | kwargs


def _missing(cls: type, plan: _InitPlan, values: dict[str, Any]) -> NoReturn:
    # Python's own wording: the positional ones first, then the keyword-only ones.
    absent = [name for name in plan.required if values[name] is _REQUIRED]
    positional = [name for name in absent if name in plan.positional]
    kind = "positional" if positional else "keyword-only"
    absent = positional or absent
    quoted = [repr(name) for name in absent]
    if len(quoted) > 2:
        listed = ", ".join(quoted[:-1]) + ", and " + quoted[-1]
    else:
        listed = " and ".join(quoted)
    plural = "s" if len(absent) > 1 else ""
    raise TypeError(
        f"{cls.__qualname__}.__init__() missing {len(absent)} required {kind} "
        f"argument{plural}: {listed}"
    )


def _fields(value: object) -> tuple[Field[Any], ...]:
    return fields(value)  # type: ignore[arg-type]


def _compared(f: Field[Any]) -> bool:
    return f.compare


def _hashed(f: Field[Any]) -> bool:
    # dataclasses' rule: a field's `hash`, else its `compare`.
    return bool(f.compare if f.hash is None else f.hash)


def _values(value: object, chosen: Any) -> tuple[Any, ...]:
    return tuple(getattr(value, f.name) for f in _fields(value) if chosen(f))
