"""The fingerprint of a submission's draws: its outputs on the exercise's probes, hashed.

After the cases of a grading that asks for it (``grade(fingerprint=True)``, the site's), the
runner calls each probe (:mod:`judge.exercises.probes`) once per exercise-wide seed, with a
``torch.Generator`` and torch's default generator both seeded with it, and keeps of the outputs
only a short hash per probe: 16 hex digits of SHA-256 over each seed's output (a tensor's dtype,
shape and bytes; numbers, strings and lists by type and value). The seeds are the exercise's,
never the grading's master seed, so two gradings of two submissions are comparable.

The probes belong to the learner's CPU time, never to a verdict: they run after every case, on
the first lane's process, all of them within one case's CPU time and wall cap; a probe whose
call raises, or returns what cannot be hashed, gets no hash; one that kills the process or runs
out of time ends the probing (the probes done keep theirs). :func:`run_probes` and
:func:`take_fingerprint` never raise. Only on the CPU: a CUDA generator's stream is another
stream, and a fingerprint is compared with those of other gradings (docs/similarity-behaviour.md).
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from typing import Any

from judge.exercises.exercise import Exercise
from judge.learner.interface import CallOptions, Learner, LearnerRaised, ProcessFailed, SandboxFailure
from judge.learner.wire import GeneratorSpec

HASH_HEX = 16  # hex digits kept of each probe's SHA-256: 64 bits, no accidental collision among gradings
log = logging.getLogger("probjudge.probing")


class Unhashable(Exception):
    """An output holds a value :func:`output_digest` does not hash (an object of the learner's)."""


def output_digest(value: Any, digest: Any) -> None:
    """Feed ``value`` (a learner's output, tensors on the CPU) to ``digest`` (a hashlib object), by type
    and content: a tensor's dtype, shape and bytes, a number's type and repr, a list's length and
    items. Raises :class:`Unhashable` for anything else."""
    import torch

    if isinstance(value, torch.Tensor):
        tensor = value.detach().cpu().contiguous()
        digest.update(f"T{tensor.dtype}{tuple(tensor.shape)}".encode())
        flat = tensor.reshape(-1)
        if flat.dtype is torch.bool:
            flat = flat.to(torch.uint8)
        digest.update(flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b"")
    elif value is None or isinstance(value, (bool, int, float, str)):
        digest.update(f"S{type(value).__name__}:{value!r}".encode())
    elif isinstance(value, (list, tuple)):
        digest.update(f"L{len(value)}".encode())
        for item in value:
            output_digest(item, digest)
    elif isinstance(value, dict) and all(isinstance(k, str) for k in value):
        digest.update(f"D{len(value)}".encode())
        for key in sorted(value):
            digest.update(f"K{key!r}".encode())
            output_digest(value[key], digest)
    else:
        raise Unhashable(type(value).__name__)


def run_probes(exercise: Exercise, process: Learner) -> dict[str, str]:
    """Each probe's hash (probe name -> 16 hex digits) from ``process``, a live learner on the CPU;
    only the probes that answered under every seed. Never raises: see the module."""
    probes = exercise.similarity
    clock = getattr(process, "cpu_time_s", None)
    if not probes.probes or clock is None:  # an in-process learner has no CPU clock to hold it to
        return {}
    deadline = clock() + exercise.time_limit_s
    wall_left = exercise.wall_cap_s
    hashes: dict[str, str] = {}
    for probe in probes.probes:
        digest = hashlib.sha256(probe.function.encode())
        try:
            for seed in probes.seeds:
                kwargs = probe.arguments()
                if probe.seeded:
                    kwargs["generator"] = GeneratorSpec(seed)
                started = time.monotonic()
                try:
                    result = process.call(
                        probe.function,
                        [],
                        kwargs,
                        timeout_s=max(0.0, wall_left),
                        options=CallOptions(global_seed=seed),
                        cpu_deadline_s=deadline,
                        cpu_limit_s=exercise.time_limit_s,
                    )
                finally:
                    wall_left -= time.monotonic() - started
                digest.update(f"seed{seed}".encode())
                output_digest(result.value, digest)
        except (LearnerRaised, Unhashable):
            continue  # this probe gets no hash; the next may
        except (ProcessFailed, SandboxFailure):
            break  # the process is gone or out of time: the probes so far keep theirs
        except Exception:  # noqa: BLE001 - a bug of the judge or of a probe's declaration, never a verdict
            log.exception("probe %s of exercise %s failed inside the judge", probe.name, exercise.number)
            continue
        hashes[probe.name] = digest.hexdigest()[:HASH_HEX]
    return hashes


@dataclass(frozen=True)
class Fingerprint:
    """What :func:`take_fingerprint` found: the hashes (None: the judge failed) and what they cost."""

    hashes: dict[str, str] | None
    wall_s: float
    cpu_s: float  # the learner's processes' CPU time in the probes

    def timing(self) -> dict[str, float]:
        """The report's ``timing`` entries (docs/report.md)."""
        return {"fingerprint_ms": self.wall_s * 1000, "fingerprint_cpu_ms": self.cpu_s * 1000}


def take_fingerprint(exercise: Exercise, process: Learner) -> Fingerprint:
    """:func:`run_probes`, timed. Never raises: a bug of the judge is logged and gives no hashes
    (a fingerprint is never worth a grading)."""
    clock = getattr(process, "cpu_time_s", None)
    started = time.monotonic()
    hashes: dict[str, str] | None = None
    cpu_s = 0.0
    try:
        cpu_before = clock() if clock else 0.0
        hashes = run_probes(exercise, process)
        # A process the probes ended (out of CPU time) may read another clock afterwards: never below 0.
        cpu_s = max(0.0, clock() - cpu_before) if clock else 0.0
    except Exception:  # noqa: BLE001 - see the docstring
        log.exception("the probes of exercise %s failed inside the judge", exercise.number)
    return Fingerprint(hashes, time.monotonic() - started, cpu_s)
