"""A package face whose names are imported on first use (PEP 562), for every face of the kit.

    if TYPE_CHECKING:
        from .runtime import Runtime      # what type checkers and readers see

    __all__ = ["Runtime"]
    __getattr__, __dir__ = lazy_face(__name__, {"Runtime": ".runtime"})

`import a2a_serverless.models` then loads the models and not the whole server, and a Lambda or
Cloud Function pays at cold start only for the modules it uses. A name, once imported, is kept
in the package's namespace: later reads are plain attribute reads. `dir()` lists the lazy names
with the others.

This module imports nothing of the kit, and `a2a_serverless/__init__.py` imports nothing else,
so the adapters' faces use it without loading the core.
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
        value = getattr(importlib.import_module(source, package), name)
        module.__dict__[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*module.__dict__, *names})

    return __getattr__, __dir__
