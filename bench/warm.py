"""Warm latency and memory: one process serves N message/send, then N tasks/get, through the
Lambda handler (events in, responses out, as Lambda calls it); each call is timed alone.

A few calls of each kind run first, untimed (the first call of each kind pays for lazy imports
and caches: that is the cold start's business). The peak RSS (VmHWM) is read after the
timed calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import mean

from .processes import Variant, run_probe
from .report import load_average, percentile


@dataclass(frozen=True)
class WarmStats:
    label: str
    send_us: list[float]
    get_us: list[float]
    peak_rss_mib: float
    rss_mib: float
    load: str

    def summary(self, kind: str) -> dict[str, float]:
        values = self.send_us if kind == "send" else self.get_us
        return {
            "p50": percentile(values, 0.50),
            "p99": percentile(values, 0.99),
            "mean": mean(values),
        }


def measure(variant: Variant, calls: int, warmup: int) -> WarmStats:
    load = load_average()
    run = run_probe(variant, "warm", calls, calls, warmup)
    memory = run.result["memory_kib"]
    return WarmStats(
        label=variant.label,
        send_us=[ns / 1000 for ns in run.result["send_ns"]],
        get_us=[ns / 1000 for ns in run.result["get_ns"]],
        peak_rss_mib=memory["VmHWM"] / 1024,
        rss_mib=memory["VmRSS"] / 1024,
        load=load,
    )
