"""A package face whose names are imported on first use (PEP 562), for every face of the kit.

    if TYPE_CHECKING:
        from .runtime import Runtime      # what type checkers and readers see

    __all__ = ["Runtime"]
    __getattr__, __dir__ = lazy_face(__name__, {"Runtime": ".runtime"})

`import a2a_serverless.models` then loads the models and not the whole server, and a Lambda or
Cloud Function pays at cold start only for the modules it uses. A name, once imported, is kept
in the package's namespace: later reads are plain attribute reads. `dir()` lists the lazy names
with the others.

The same mechanism makes a deployment's entry points on first use (`build_on_first_use`, what
the adapters' `entry_points` call): Lambda's runtime and functions-framework look a handler up
by name in the user's module, so each function builds only the handler it serves, and the user
writes no module-level `__getattr__`.

In a function's process, a face's import runs with the garbage collector paused, and what it
made is then frozen (collector.py's `imported_long_lived`: ~6 ms of a cold start).

This module imports nothing of the kit (collector.py, the standard library alone, when a first
name is used), and `a2a_serverless/__init__.py` imports nothing else, so the adapters' faces
use it without loading the core.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any


class _Face(ModuleType):
    """A package face that keeps its exported names over its submodules of the same name."""

    def __setattr__(self, name: str, value: Any) -> None:
        # Loading a submodule binds it on its package under its own name: `a2a_serverless.agent`,
        # the module, over `agent`, the decorator the face exports. The face's name wins, as it
        # did when the face imported everything at once (then imported on first use).
        if (
            isinstance(value, ModuleType)
            and value.__name__ == f"{self.__name__}.{name}"
            and name in self.__dict__.get("__all__", ())
        ):
            return
        super().__setattr__(name, value)


def lazy_face(
    package: str, where: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of the package `package`, whose names in `where` (each
    with the module it comes from, relative to the package) are imported on first use."""
    module = sys.modules[package]
    names = dict(where)
    module.__class__ = _Face

    def __getattr__(name: str) -> Any:
        source = names.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        from .collector import imported_long_lived  # with the first name used, not the face

        value = getattr(imported_long_lived(lambda: importlib.import_module(source, package)), name)
        module.__dict__[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*module.__dict__, *names})

    return __getattr__, __dir__


def build_on_first_use(module: str, factories: Mapping[str, Callable[[], Any]]) -> None:
    """Give the module `module` (already importing: pass `__name__`) the names in
    `factories`, each made by its factory when first read and kept in the module from then on.
    ValueError if the module has a `__getattr__` of its own."""
    target = sys.modules[module]
    if "__getattr__" in target.__dict__:
        raise ValueError(f"module {module!r} already has a __getattr__")
    made = dict(factories)

    def __getattr__(name: str) -> Any:
        factory = made.get(name)
        if factory is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = factory()
        target.__dict__[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*target.__dict__, *made})

    target.__dict__["__getattr__"] = __getattr__
    target.__dict__["__dir__"] = __dir__


def imported(reference: str) -> Any:
    """What `"package.module:attribute"` names, imported now (ValueError without the colon)."""
    module, colon, attribute = reference.partition(":")
    if not colon or not module or not attribute:
        raise ValueError(f"{reference!r}: expected 'package.module:attribute'")
    value = importlib.import_module(module)
    for name in attribute.split("."):
        value = getattr(value, name)
    return value
