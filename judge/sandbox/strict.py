"""The ``strict`` level on the judge's side: worker slots and the launcher.

:class:`StrictLauncher` plugs into :class:`judge.engine.process.LearnerProcess` beside
:class:`judge.sandbox.launchers.LocalLauncher`: it takes a worker slot (its own uid/gid and scratch
directory), creates the job's cgroups and asks the zygote
(:class:`judge.sandbox.zygote_client.Zygote`) to fork a confined child on the job's pipes. A slot is
a lease: :meth:`StrictChild.release` kills the job at once (SIGKILL to its keeper's lifeline, its
process group and its cgroup) and returns; the launcher's reaper thread then waits for the keeper to
end, removes the cgroups and only then puts the slot back (so the next job of that uid never meets a
leftover process, and nobody's verdict waits for a teardown). The launcher holds up to twice as many
slots as it runs jobs at once, so that a new job finds a clean slot while the last one is still
being reaped. Waiting for a slot has a deadline (:data:`SLOT_WAIT_S`): past it, that one job fails
with :class:`~judge.learner.interface.SandboxFailure` (IE), and the others carry on. A zygote that
died is replaced at the next launch.
"""

from __future__ import annotations

import itertools
import logging
import os
import queue
import signal
import socket
import sys
import threading
import time
from pathlib import Path

from judge.learner.interface import SandboxFailure
from judge.sandbox import cgroups, keeper
from judge.sandbox.confine import Confinement
from judge.sandbox.keeper import Lifeline
from judge.sandbox.zygote_client import SPAWN_TIMEOUT_S, SandboxUnavailable, Zygote

BASE_ID = 61_000  # slot uids/gids come from BASE_ID .. BASE_ID + 64 000
MAX_SLOTS = 16
_launchers = itertools.count()
log = logging.getLogger("probjudge.sandbox")
SCRATCH_ROOT = Path("/tmp/probjudge-slots")
# With a cgroup holding the real limit, RLIMIT_AS only stops one huge reservation: it allows this
# much above the memory limit and what the zygote already maps (torch: 0.6 GB CPU, GBs with CUDA).
AS_HEADROOM_MB = 512
SLOT_WAIT_S = 60.0  # a job that finds no free slot this long fails alone (IE), instead of hanging its worker
KEEPER_EXIT_S = 10.0  # how long the judge waits for a keeper to finish killing its tree
DEFAULT_MEMORY_MB = 4096  # a job's memory limit where the exercise gives none


class StrictLauncher:
    """Learner processes forked from a warm zygote and confined by every layer (see ``confine.py``).

    ``slots`` is how many jobs may run at once; each slot has its own uid/gid and scratch
    directory, so two jobs can never touch each other's files or signal each other.
    """

    level = "strict"

    startup_allowance_s = 0.0  # torch is already imported in the zygote: loading is the learner's own time
    startup_cpu_allowance_s: float | None = None  # the wall clock above, and the slot's RLIMIT_CPU

    def __init__(
        self,
        *,
        slots: int = 2,
        scratch_mb: int = 64,
        max_processes: int = 64,
        cpu_seconds: int = 600,
        zygote: Zygote | None = None,
        base_id: int | None = None,
        slot_wait_s: float = SLOT_WAIT_S,
    ) -> None:
        if not 1 <= slots <= MAX_SLOTS:
            raise ValueError(f"slots must be between 1 and {MAX_SLOTS}")
        # Each launcher gets its own block of uids, so two judges on one machine (a server and a
        # CLI run, say) never share a uid, its process limit, or the right to signal each other.
        self.base_id = (
            base_id if base_id is not None else (BASE_ID + ((os.getpid() * 31 + next(_launchers)) % 4000) * MAX_SLOTS)
        )
        from judge.sandbox.layers import missing_required

        missing = missing_required()
        if missing:
            raise SandboxUnavailable(
                "required layers are missing: " + "; ".join(f"{layer.name} ({layer.detail})" for layer in missing)
            )
        self.cgroup_support = cgroups.detect()
        cgroups.remove_stale(self.cgroup_support)  # what a judge killed outright left behind
        self.zygote = zygote or Zygote()
        self.scratch_mb = scratch_mb
        self.max_processes = max_processes
        self.cpu_seconds = cpu_seconds
        self.slots = slots
        self.slot_wait_s = slot_wait_s
        # Slots (uids, scratch points) outnumber the jobs that may run at once, so that a job
        # need not wait for the reaping of the last one: a slot is clean (in ``_clean``) once the
        # reaper has seen its last job's keeper end and removed its cgroups, never before.
        self._pool = min(2 * slots, MAX_SLOTS)
        self._clean = list(range(self._pool))
        self._running = 0  # jobs launched and not yet released (at most ``slots``)
        self._reaping = 0  # released jobs the reaper has not finished with
        self._spares: dict[int, PreparedJob] = {}  # clean slot -> the job prepared there
        self._closing = False
        self._slot_lock = threading.Condition()
        self._zygote_lock = threading.Lock()
        self._ended: queue.SimpleQueue[StrictChild] = queue.SimpleQueue()
        self._reaper = threading.Thread(target=self._reap, name="strict-reaper", daemon=True)
        self._reaper.start()
        self.readable = sorted({sys.prefix, sys.base_prefix, sys.exec_prefix, *map(str, _package_dirs())})
        SCRATCH_ROOT.mkdir(mode=0o755, exist_ok=True)

    @property
    def free_slots(self) -> int:
        """Jobs that could start now, once the jobs released so far are reaped (it waits for that).

        Every one of :attr:`slots` between jobs: a lower number is a leak (a job never released,
        or a slot the reaper never got back)."""
        self.settle()
        with self._slot_lock:
            return self.slots - (self._pool - len(self._clean))

    def settle(self, timeout_s: float = 30.0) -> bool:
        """Wait until the reaper is done with every released job; whether it is (not past ``timeout_s``)."""
        deadline = time.monotonic() + timeout_s
        with self._slot_lock:
            while self._reaping:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._slot_lock.wait(remaining)
            return True

    def prepared_workers(self) -> set[int]:
        """The workers of the jobs prepared now (confined, waiting for a job; none has served one),
        once each has said it is confined: the only processes of this launcher's uids between jobs."""
        with self._slot_lock:
            spares = list(self._spares.values())
        workers = set()
        for spare in spares:
            try:
                spare.confirm()
            except SandboxFailure:
                continue
            if spare.worker is not None:
                workers.add(spare.worker)
        return workers

    def _take_slot(self, memory_mb: int) -> tuple[int, PreparedJob | None]:
        """A clean slot, counted as running, and the job prepared there (None: none); one prepared
        for ``memory_mb`` where a slot has one. Waits (up to ``slot_wait_s``) while ``slots`` jobs
        run or every slot is still being reaped."""
        deadline = time.monotonic() + self.slot_wait_s
        with self._slot_lock:
            while self._running >= self.slots or not self._clean:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise SandboxFailure(
                        f"no sandbox slot became free within {self.slot_wait_s:.0f} s",
                        f"all {self.slots} slots busy for {self.slot_wait_s:.0f} s",
                    )
                self._slot_lock.wait(remaining)
            self._running += 1
            wanted = self._settings(memory_mb)
            fits = [i for i, slot in enumerate(self._clean) if getattr(self._spares.get(slot), "settings", 0) == wanted]
            slot = self._clean.pop(fits[0] if fits else 0)
            return slot, self._spares.pop(slot, None)

    def _give_back(self, slot: int) -> None:
        """Put back the slot of a job that never started (nothing of it runs: no reaping)."""
        with self._slot_lock:
            self._running -= 1
            self._clean.append(slot)
            self._slot_lock.notify_all()
        self._stop_zygote_if_closed(reaping=0)

    def _retire(self, job: StrictChild) -> None:
        """A killed job: no longer running; its slot comes back once the reaper is done with it."""
        with self._slot_lock:
            self._running -= 1
            self._reaping += 1
            self._slot_lock.notify_all()
        self._ended.put(job)

    def _reap(self) -> None:
        """The reaper thread: finish each retired job in turn, then put its slot back."""
        while True:
            job = self._ended.get()
            spare = None
            try:
                job._finish()
                spare = self._prepare(job._slot, job.memory_mb)
            except Exception:  # noqa: BLE001 - a reaper that stops would leak every later slot
                log.exception("reaping the strict job of keeper %s failed", job.pid)
            finally:
                with self._slot_lock:
                    if spare is not None:
                        spare.slot = job._slot
                        self._spares[job._slot] = spare
                    self._clean.append(job._slot)
                self._stop_zygote_if_closed(reaping=1)  # before settle() can return
                with self._slot_lock:
                    self._reaping -= 1
                    self._slot_lock.notify_all()

    def _stop_zygote_if_closed(self, *, reaping: int) -> None:
        """After :meth:`close`, stop the zygote that a later launch started, once no job runs and
        none but ``reaping`` (the caller's own) waits for the reaper: jobs launched after a
        close (gradings under way) are served, and their zygote does not outlive them."""
        if not self._closing:
            return  # the common case: no lock (a launch may hold it while a zygote starts)
        with self._zygote_lock:  # a launch that finds the zygote stopped starts another one
            with self._slot_lock:
                idle = self._closing and not self._running and self._reaping <= reaping
            if idle and self.zygote.alive:
                self.zygote.close()

    def _running_zygote(self) -> Zygote:
        """The zygote, started anew when the last one died (it is per launcher, never shared)."""
        with self._zygote_lock:
            if not self.zygote.alive:
                log.warning("the strict sandbox's zygote (pid %s) is gone; starting a new one", self.zygote.pid)
                self.zygote.close()
                self.zygote = Zygote()
            return self.zygote

    def launch(
        self,
        *,
        device: str,
        memory_limit_mb: int | None,
        fd_in: int,
        fd_out: int,
        output_fd: int,
        import_dir: str | None = None,
    ) -> StrictChild:
        """A confined job on the given fds; ``import_dir`` is ignored (the sandbox cannot read the
        learner's folder: a submission is one file)."""
        del import_dir
        if device != "cpu":
            raise SandboxFailure(
                "the strict sandbox runs on the CPU only",
                f"device {device!r} asked of the strict level (GPU device files are not confined)",
            )
        memory_mb = memory_limit_mb or DEFAULT_MEMORY_MB
        slot, spare = self._take_slot(memory_mb)
        if spare is not None:
            job = self._start_spare(spare, memory_mb, fds=[fd_in, fd_out, output_fd])
            if job is not None:
                return job
        job_cgroup = None
        lifeline = Lifeline()
        try:
            job_cgroup = self._job_cgroup(slot, memory_mb)
            zygote = self._running_zygote()
            confinement = self._confinement(slot, memory_mb, job_cgroup, zygote)
            try:
                keeper_pid, worker = zygote.spawn(
                    device=device, confinement=confinement, fds=[fd_in, fd_out, output_fd, lifeline.read_fd]
                )
            finally:
                lifeline.handed_over()
        except BaseException as failure:
            lifeline.cut()
            pid = getattr(failure, "pid", None)
            if pid:  # a keeper was forked: wait until it has killed what it started
                zygote.exit_status(pid, 5)
                zygote.forget(pid)
            if job_cgroup:
                job_cgroup.remove()
            self._give_back(slot)
            if isinstance(failure, (OSError, ValueError)):  # creating the cgroup or the scratch point
                raise SandboxFailure(
                    "the sandbox could not prepare the job", f"{type(failure).__name__}: {failure}"
                ) from None
            raise
        return StrictChild(self, zygote, keeper_pid, worker, slot, job_cgroup, lifeline, memory_mb)

    def _job_cgroup(self, slot: int, memory_mb: int) -> cgroups.JobCgroup | None:
        """The slot's scratch point made, and a new cgroup for a job of ``slot`` (None without cgroups)."""
        (SCRATCH_ROOT / f"slot-{slot}").mkdir(mode=0o755, exist_ok=True)
        if not self.cgroup_support.available:
            return None
        return cgroups.JobCgroup(
            f"slot-{slot}-{time.monotonic_ns()}",
            memory_bytes=memory_mb << 20,
            max_pids=self.max_processes,
            support=self.cgroup_support,
        )

    def _confinement(
        self, slot: int, memory_mb: int, job_cgroup: cgroups.JobCgroup | None, zygote: Zygote
    ) -> Confinement:
        # The learner's own allocations count, not what the zygote maps already. With a cgroup,
        # it holds the real (resident) limit and the address-space limit is only a looser guard
        # against one huge reservation; without one, the address space is the limit.
        address_space_mb = memory_mb + zygote.address_space_mb + (AS_HEADROOM_MB if job_cgroup else 0)
        return Confinement(
            uid=self.base_id + slot,
            gid=self.base_id + slot,
            scratch=str(SCRATCH_ROOT / f"slot-{slot}"),
            scratch_mb=self.scratch_mb,
            memory_mb=address_space_mb,
            cpu_seconds=self.cpu_seconds,
            max_processes=self.max_processes,
            cgroup_dirs=[str(d) for d in job_cgroup.dirs] if job_cgroup else [],
            readable=self.readable,
        )

    def _prepare(self, slot: int, memory_mb: int) -> PreparedJob | None:
        """In the reaper, for a slot it has just cleaned: a job confined ahead (its cgroup joined,
        every layer in place) that the next launch of that memory limit hands its descriptors to.
        Not waited for; None where none can be asked for now (the launch then starts one as ever)."""
        zygote = self.zygote
        if self._closing or not zygote.alive:
            return None
        lifeline = Lifeline()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        job_cgroup = None
        try:
            job_cgroup = self._job_cgroup(slot, memory_mb)
            confinement = self._confinement(slot, memory_mb, job_cgroup, zygote)
            request = zygote.prepare(device="cpu", confinement=confinement, fds=[theirs.fileno(), lifeline.read_fd])
        except (OSError, ValueError, SandboxFailure) as failure:
            log.warning("could not prepare a strict job for slot %s: %s", slot, failure)
            lifeline.cut()
            ours.close()
            if job_cgroup is not None:
                job_cgroup.remove()
            return None
        finally:
            lifeline.handed_over()
            theirs.close()
        return PreparedJob(zygote, request, memory_mb, self._settings(memory_mb), job_cgroup, lifeline, ours)

    def _settings(self, memory_mb: int) -> tuple:
        """What a job's confinement depends on besides its slot: a prepared job serves only a
        launch whose settings are the same (a launcher's may change between jobs)."""
        return (memory_mb, self.cpu_seconds, self.scratch_mb, self.max_processes, self.cgroup_support, self.readable)

    def _start_spare(self, spare: PreparedJob, memory_mb: int, *, fds: list[int]) -> StrictChild | None:
        """The job ``spare`` was prepared for, started on ``fds``; None (the spare discarded, its
        slot still held) where it does not fit ``memory_mb`` or is unusable, so that the launch
        starts a job as ever."""
        if spare.settings == self._settings(memory_mb) and spare.zygote is self.zygote and spare.zygote.alive:
            try:
                spare.start(fds)
                assert spare.pid and spare.worker is not None  # start() raised otherwise
                return StrictChild(
                    self,
                    spare.zygote,
                    spare.pid,
                    spare.worker,
                    spare.slot,
                    spare.cgroup,
                    spare.lifeline,
                    spare.memory_mb,
                )
            except SandboxFailure as failure:
                log.warning("a prepared strict job was unusable (%s: %s); starting one anew", failure, failure.detail)
        spare.discard()
        return None

    def close(self) -> None:
        """Let the reaper finish the released jobs, end the prepared ones, then stop the zygote
        (jobs still running end with their lifelines, not with it). A launch after it (a grading
        still under way) starts a zygote again, which stops once no job runs or waits for reaping."""
        self._closing = True
        self.settle()
        with self._slot_lock:
            spares, self._spares = list(self._spares.values()), {}
        for spare in spares:
            spare.discard()
        self.zygote.close()


class PreparedJob:
    """A job confined ahead of its launch (:meth:`StrictLauncher._prepare`), waiting for its descriptors.

    It serves one job at most: the launcher takes it out of its slot before :meth:`start`, and
    its worker ends with that job. Until then it holds nothing of any job: no source, no pipe,
    only its slot's uid, scratch tmpfs and cgroup, and the worker's end of ``direct`` (the
    judge's is here), on which :meth:`start` sends the job's descriptors straight to the worker.
    """

    def __init__(
        self,
        zygote: Zygote,
        request: int,
        memory_mb: int,
        settings: tuple,
        job_cgroup: cgroups.JobCgroup | None,
        lifeline: Lifeline,
        direct: socket.socket,
    ) -> None:
        self.zygote = zygote
        self.request = request
        self.memory_mb = memory_mb
        self.settings = settings  # StrictLauncher._settings() when it was prepared
        self.cgroup = job_cgroup
        self.lifeline = lifeline
        self.direct = direct
        self.slot = -1  # set when it is filed under its slot
        self.pid: int | None = None  # its keeper, once the zygote has said it is confined
        self.worker: int | None = None

    def start(self, fds: list[int], timeout_s: float = SPAWN_TIMEOUT_S) -> None:
        """Hand the worker the job's three descriptors (request read end, result write end,
        output write end) once it is confined (at once, mostly: it was asked for a grading ago).
        Raises :class:`SandboxFailure` where a layer failed, or the worker or its keeper is gone."""
        self.confirm(timeout_s)
        if self.pid and self.zygote.exit_status(self.pid, 0) is not None:
            # Killed from outside: its worker would serve the job with nobody to end its tree.
            raise SandboxFailure("the sandbox's prepared process did not start", "its keeper has ended")
        try:
            socket.send_fds(self.direct, [b'{"op": "start"}'], fds)
            self.direct.settimeout(timeout_s)
            answer = self.direct.recv(64)
        except OSError as exc:
            raise SandboxFailure(
                "the sandbox's prepared process did not start", f"{type(exc).__name__}: {exc}"
            ) from None
        finally:
            self.direct.close()
        if answer != b'{"op": "started"}':
            raise SandboxFailure("the sandbox's prepared process did not start", f"it answered {answer[:64]!r}")

    def confirm(self, timeout_s: float = SPAWN_TIMEOUT_S) -> None:
        """Wait for the zygote's word that it is confined (``pid``, ``worker``); raises
        :class:`SandboxFailure` where a layer failed (again at every call)."""
        if self.worker is not None:
            return
        if self.pid is not None:
            raise SandboxFailure("the sandbox could not confine the process", "the prepared job failed")
        try:
            self.pid, self.worker = self.zygote.answer(self.request, timeout_s)
        except SandboxFailure as failure:
            self.pid = getattr(failure, "pid", None) or 0
            raise

    def discard(self) -> None:
        """End it and wait until nothing of it is left (its slot may be reused then)."""
        self.lifeline.cut()
        self.direct.close()
        try:
            self.confirm(KEEPER_EXIT_S)
        except SandboxFailure:
            pass
        if self.pid:
            self.zygote.exit_status(self.pid, KEEPER_EXIT_S)
            self.zygote.forget(self.pid)
        if self.cgroup is not None:
            self.cgroup.remove()


class StrictChild:
    """A confined job, seen from the judge: its keeper (``pid``, the zygote's child) and worker.

    The keeper's exit status is the worker's (see :mod:`judge.sandbox.keeper`).
    """

    def __init__(
        self,
        launcher: StrictLauncher,
        zygote: Zygote,
        pid: int,
        worker: int,
        slot: int,
        job_cgroup: cgroups.JobCgroup | None,
        lifeline: Lifeline,
        memory_mb: int = 0,
    ) -> None:
        self.memory_mb = memory_mb  # the job's limit: the reaper prepares the slot's next job alike
        self.accounts_memory = job_cgroup is not None  # a SIGKILL without a cgroup memory event is not MLE
        self._launcher = launcher
        self._zygote = zygote
        self.pid = pid
        self.worker = worker
        self._slot = slot
        self._cgroup = job_cgroup
        self._lifeline = lifeline
        self._released = False

    def _code(self, status: int | None) -> int | None:
        return None if status is None else os.waitstatus_to_exitcode(status)

    def poll(self) -> int | None:
        return self._code(self._zygote.exit_status(self.pid, 0))

    def wait(self, timeout: float) -> int | None:
        return self._code(self._zygote.exit_status(self.pid, timeout))

    def kill(self) -> None:
        """End the job's whole tree: the keeper does it; the worker's group and the cgroup at once too.

        Returns once the cgroup is empty (where there is one): nothing of the learner's runs then."""
        self._signal_all()
        if self._cgroup is not None:
            self._cgroup.kill_all()  # also what left the process group (setsid in a grandchild)

    def _signal_all(self) -> None:
        """Tell the keeper to end the job, and SIGKILL the worker's group and the cgroup; no waiting."""
        self._lifeline.cut()
        try:
            os.killpg(self.worker, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self._cgroup is not None:
            self._cgroup.kill_all(wait=False)

    def memory_exceeded(self) -> bool:
        return self._cgroup is not None and self._cgroup.limit_hit()

    def cpu_time_s(self) -> float:
        """CPU seconds of every process the learner's code ran: one read of the job's cgroup where
        the kernel accounts CPU time there (what the worker and everything it starts is born in,
        and cannot leave), else the keeper's whole tree from ``/proc`` (ten times the cost)."""
        if self._cgroup is not None and self._cgroup.accounts_cpu:
            return self._cgroup.cpu_seconds() or 0.0
        return keeper.tree_cpu_seconds(self.pid)

    def release(self) -> None:
        """Kill the job and return at once; the launcher's reaper waits for the keeper, frees the
        cgroups and then gives the slot back (idempotent).

        Once it returns, every process of the job has been sent SIGKILL (none runs code of its own
        again; the keeper kills what a fork raced past the signals) and the job no longer counts
        as running; its slot is not reused until the keeper has ended.
        """
        if self._released:
            return
        self._released = True
        try:
            self._signal_all()
        finally:
            self._launcher._retire(self)

    def _finish(self) -> None:
        """In the reaper: wait for the keeper, then remove the cgroups."""
        # The keeper ends only once every process below it has ended (the cgroup is empty then):
        # waiting for it is waiting for the whole tree, so no wait of our own before.
        if self._zygote.exit_status(self.pid, KEEPER_EXIT_S) is None and not self._zygote.alive:
            # The zygote died: nobody reports the keeper's end now, and it may still be killing
            # the tree (without cgroups, nothing else does): watch /proc for its end instead.
            deadline = time.monotonic() + KEEPER_EXIT_S
            while keeper.running(self.pid) and time.monotonic() < deadline:
                time.sleep(0.005)
        self._zygote.forget(self.pid)
        if self._cgroup is not None:
            self._cgroup.remove()


def _package_dirs() -> list[Path]:
    """Where installed packages live (site-packages of the venv and of the base interpreter)."""
    import site

    dirs = [Path(p) for p in site.getsitepackages()]
    user = site.getusersitepackages()
    if isinstance(user, str):
        dirs.append(Path(user))
    return [d for d in dirs if d.exists()]
