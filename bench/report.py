"""The results table: our figure next to each peer's, the ratios measured in the same run, the goal.

Two peers: the official a2a-sdk 0.3.26 (spoken to in A2A 0.3) and 1.3.0 (in A2A 1.0). `ours` is
our figure speaking 0.3, `ours1` the same thing speaking 1.0 where the row measured it (else
`ours` stands for both).

Every section adds `Row`s; `render` prints them as one plain-text table, and `to_json` gives the
same rows for `--json`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (`fraction` 0.5 is the median, 0.99 the 99th)."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


@dataclass
class Row:
    section: str
    metric: str
    unit: str
    ours: float | None
    peer: float | None  # the a2a-sdk 0.3.26 peer's
    # "lower" (time, bytes) or "higher" (requests/s) is better.
    better: str = "lower"
    # The factor by which ours should beat the peer (None: no goal for this metric).
    goal: float | None = None
    # The peer's figure from the issue (measured earlier on this kind of machine).
    issue_target: float | None = None
    load: str = ""
    note: str = ""
    # The a2a-sdk 1.3.0 peer's figure, and ours speaking 1.0 (None: `ours` stands for it).
    peer1: float | None = None
    ours1: float | None = None

    @property
    def ratio(self) -> float | None:
        """How many times better ours is than the 0.3 peer (> 1: ours is better)."""
        return _ratio(self.ours, self.peer, self.better)

    @property
    def ratio1(self) -> float | None:
        """How many times better ours (speaking 1.0) is than the 1.3.0 peer."""
        return _ratio(self.ours if self.ours1 is None else self.ours1, self.peer1, self.better)

    @property
    def met(self) -> str:
        """ "yes" when ours beats every peer measured by the goal's factor."""
        ratios = [r for r in (self.ratio, self.ratio1) if r is not None]
        if self.goal is None or not ratios:
            return ""
        return "yes" if min(ratios) >= self.goal else "NO"


def _ratio(ours: float | None, peer: float | None, better: str) -> float | None:
    if ours is None or peer is None or ours <= 0 or peer <= 0:
        return None
    return peer / ours if better == "lower" else ours / peer


@dataclass
class Report:
    header: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)

    def add(self, row: Row) -> None:
        self.rows.append(row)

    def render(self) -> str:
        columns = [
            "section",
            "metric",
            "ours",
            "sdk 0.3.26",
            "x",
            "ours (1.0)",
            "sdk 1.3.0",
            "x",
            "goal",
            "met",
            "peer (issue)",
            "load avg",
        ]
        table = [columns]
        for row in self.rows:
            ratio, ratio1 = row.ratio, row.ratio1
            goal = "" if row.goal is None else f">= {row.goal:g}x"
            table.append(
                [
                    row.section,
                    row.metric,
                    _number(row.ours, row.unit),
                    _number(row.peer, row.unit),
                    "" if ratio is None else f"{ratio:.2f}x",
                    "" if row.ours1 is None else _number(row.ours1, row.unit),
                    _number(row.peer1, row.unit),
                    "" if ratio1 is None else f"{ratio1:.2f}x",
                    goal,
                    row.met,
                    _number(row.issue_target, row.unit) if row.issue_target else "",
                    row.load,
                ]
            )
        widths = [max(len(line[i]) for line in table) for i in range(len(columns))]
        lines = [*self.header, ""]
        for index, line in enumerate(table):
            cells = [
                cell.ljust(widths[i]) if i < 2 else cell.rjust(widths[i])
                for i, cell in enumerate(line)
            ]
            lines.append("  ".join(cells).rstrip())
            if index == 0:
                lines.append("  ".join("-" * w for w in widths))
        row_notes = [f"- {row.section} / {row.metric}: {row.note}" for row in self.rows if row.note]
        if row_notes or self.notes:
            lines += ["", "Notes:", *row_notes, *(f"- {note}" for note in self.notes)]
        if self.details:
            lines += ["", *self.details]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "header": self.header,
            "rows": [
                {**asdict(row), "ratio": row.ratio, "ratio1": row.ratio1, "met": row.met}
                for row in self.rows
            ],
            "notes": self.notes,
            "details": self.details,
        }


def _number(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "MiB":
        return f"{value:.1f} MiB"
    if unit == "req/s":
        return f"{value:.0f} req/s"
    if unit == "ms":
        return f"{value:.1f} ms" if value >= 10 else f"{value:.2f} ms"
    if unit == "us":
        return f"{value:.0f} us"
    return f"{value:g} {unit}".strip()
