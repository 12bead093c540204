"""The one kind of sentinel: a unique marker for "nothing here" where None is a real value (a
field left out versus a null one, "leave it as it is" versus "set it to None"), or for an item
of a stream that is no data (a keep-alive). Compared with `is`; its repr names it."""

from __future__ import annotations

from typing import final


@final
class Sentinel:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"

    def __copy__(self) -> Sentinel:
        return self  # one of a kind: copies (dataclasses.replace, deepcopy) must stay `is`-equal

    def __deepcopy__(self, memo: object) -> Sentinel:
        return self
