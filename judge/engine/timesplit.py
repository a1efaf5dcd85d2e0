"""Where one judging's wall time goes: the report's ``timing`` (never a verdict)."""

from __future__ import annotations

from dataclasses import dataclass, field

from judge.learner.interface import CallTiming, Learner


@dataclass
class TimeSplit:
    """Where one judging's wall time goes, for reports, operators and benchmarks (never a verdict).

    ``start``: starting the learner's process and loading its file (restarts too); ``learner``:
    inside the learner's functions, as its process reports it (clamped to each call's wall time);
    ``transfer``: the rest of the calls' wall time (encoding, the pipe, decoding, the checks around
    each call on the learner's side); ``end``: closing the process; ``judge``: everything else
    (cases, targets, statistics, report). Calls and bytes are the learner's processes' totals
    (:class:`~judge.learner.interface.CallTiming`). With several lanes, each lane keeps its own split and
    the run adds them up (:meth:`add`): the parts then share the lanes' busy time, not the wall.
    """

    start_s: float = 0.0
    end_s: float = 0.0
    calls: CallTiming = field(default_factory=CallTiming)

    def add(self, other: TimeSplit) -> None:
        """Add ``other``'s parts (another lane's) to these."""
        self.start_s += other.start_s
        self.end_s += other.end_s
        self.calls += other.calls

    def add_process(self, process: Learner, before: CallTiming | None = None) -> None:
        """Count the calls of ``process`` (once, when the run is done with it), less ``before``:
        its totals when the run was handed it (a caller's process may have served other runs)."""
        timing = getattr(process, "call_timing", None)
        if isinstance(timing, CallTiming):  # else a learner that keeps no totals
            self.calls += timing - (before or CallTiming())

    def as_report(self, busy_s: float) -> dict[str, float]:
        """Milliseconds per part (``judge_ms`` is what the others leave of ``busy_s``: the run's
        wall time plus the wall time of its other lanes' threads), the call
        count and the bytes sent and received."""
        calls = self.calls
        parts = self.start_s + calls.wall_s + self.end_s
        return {
            "start_ms": self.start_s * 1000,
            "learner_ms": calls.learner_s * 1000,
            "transfer_ms": calls.transfer_s * 1000,
            "judge_ms": max(0.0, busy_s - parts) * 1000,
            "end_ms": self.end_s * 1000,
            "calls": calls.calls,
            "bytes_sent": calls.bytes_sent,
            "bytes_received": calls.bytes_received,
        }
