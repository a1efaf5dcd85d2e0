"""The local level started warm (WarmLocalLauncher): a forked learner process is a fresh one in all but its start.

Each behaviour of the local level is checked for both starts (``fresh``: LocalLauncher, ``warm``:
WarmLocalLauncher, one fork server for the module); what only a fork could get wrong (state or
random numbers shared between jobs, a server that outlives its judge or dies) is checked warm.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from judge.engine.process import LearnerProcess, LearnerRaised, LearnerSource, ProcessFailed, SandboxFailure
from judge.learner.code import OUTPUT_FILE_LIMIT
from judge.sandbox.keeper import Lifeline
from judge.sandbox.keeper import running as _running
from judge.sandbox.launchers import LocalLauncher, WarmLocalLauncher
from judge.verdicts import Verdict

LEARNER = """
    import builtins, os, random, resource, signal, subprocess, sys, tempfile, time
    import torch
    import helper

    SEEN = []
    print("started by", os.path.basename(sys.argv[0]))

    def describe():
        return {
            "cwd": os.getcwd(),
            "home": os.environ.get("HOME"),
            "tmpdir": os.environ.get("TMPDIR"),
            "gettempdir": tempfile.gettempdir(),
            "environment": sorted(os.environ),
            "threads": torch.get_num_threads(),
            "helper": helper.VALUE,
            "file_size": resource.getrlimit(resource.RLIMIT_FSIZE)[0],
            "address_space_limited": resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY,
            "judge_modules": sorted(m for m in sys.modules if m.startswith("judge")),
            "start": os.path.basename(sys.argv[0]),
            "pid": os.getpid(),
            "seen": list(SEEN),
            "left_behind": hasattr(builtins, "PROBJUDGE_LEFT_BEHIND") or "probjudge_left_behind" in sys.modules,
        }

    def remember(token):
        SEEN.append(token)
        helper.VALUE = token
        builtins.PROBJUDGE_LEFT_BEHIND = token
        sys.modules["probjudge_left_behind"] = helper
        return describe()

    def hello():
        print("hello from the learner")
        return 1

    def spin():
        while True:
            pass

    def burn(seconds):
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass
        return seconds

    def leave():
        os._exit(3)

    def crash():
        os.kill(os.getpid(), signal.SIGSEGV)

    def take(megabytes):
        held = torch.ones(megabytes << 20, dtype=torch.uint8)  # every page written
        return int(held[-1])

    def write_file(megabytes):
        with open("written.bin", "wb") as file:
            for _ in range(megabytes):
                file.write(b"w" * (1 << 20))
        return os.path.getsize("written.bin") >> 20

    def linger():
        # A worker that would outlive the end of its input: it sleeps at exit, however it exits.
        import atexit
        atexit.register(time.sleep, 600)
        os._exit = lambda code: time.sleep(600)
        return os.getpid()

    def orphan():
        # A grandchild in a session of its own, which its parent leaves behind at once.
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
        return child.pid
"""


@pytest.fixture(scope="module")
def warm_launcher():
    with WarmLocalLauncher() as launcher:
        yield launcher


@pytest.fixture(params=["fresh", "warm"])
def launcher(request):
    return LocalLauncher() if request.param == "fresh" else request.getfixturevalue("warm_launcher")


@pytest.fixture
def learner(tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 41\n")
    path = tmp_path / "solution.py"
    path.write_text(textwrap.dedent(LEARNER))
    return path


def _call(process: LearnerProcess, function: str, **options):
    return process.call(function, [], {}, timeout_s=options.pop("timeout_s", 30), **options).value


# --------------------------------------------------------------------------- the same, whichever start


def test_a_process_gets_what_a_fresh_one_gets(learner, warm_launcher, monkeypatch):
    monkeypatch.setenv("PROBJUDGE_SECRET_TOKEN", "s3cret")
    seen = {}
    for name, launcher in (("fresh", LocalLauncher()), ("warm", warm_launcher)):
        with LearnerProcess(learner, memory_limit_mb=1024, launcher=launcher) as process:
            seen[name] = _call(process, "describe")
    fresh, warm = seen["fresh"], seen["warm"]
    assert (fresh["start"], warm["start"]) == ("child.py", "zygote.py")  # the two starts did run
    for info in (fresh, warm):
        assert info["cwd"] == info["home"] == info["tmpdir"] == info["gettempdir"]
        assert Path(info["cwd"]).name.startswith("probjudge-")
        assert "PROBJUDGE_SECRET_TOKEN" not in info["environment"]
        # Nothing of the grading side is in the process (the warm server is forked before any job).
        assert not {"judge.engine.runner", "judge.checks.base", "judge.exercises.suites", "judge.exercises.exercise"} & set(info["judge_modules"])
    assert fresh["cwd"] != warm["cwd"]
    for key in ("environment", "threads", "helper", "file_size", "address_space_limited"):
        assert fresh[key] == warm[key], key
    assert warm["threads"] == 1 and warm["helper"] == 41 and warm["file_size"] == OUTPUT_FILE_LIMIT
    assert warm["address_space_limited"]


def test_output_is_captured(learner, launcher):
    with LearnerProcess(learner, launcher=launcher) as process:
        assert _call(process, "hello") == 1
        assert "hello from the learner" in process.output_tail()


def test_cpu_time_is_the_process_own_and_a_spinning_call_is_tle(learner, launcher):
    with LearnerProcess(learner, launcher=launcher) as process:
        started = process.cpu_time_s()
        if isinstance(launcher, WarmLocalLauncher):
            assert started < 1.0  # a warm start is not charged the fork server's import of torch
        with pytest.raises(ProcessFailed) as failed:
            _call(process, "spin", timeout_s=120, cpu_deadline_s=started + 0.5, cpu_limit_s=0.5)
        assert failed.value.verdict is Verdict.TLE and "used up" in str(failed.value)
        assert not process.alive


def test_a_call_half_its_cpu_time_answers_and_one_of_one_and_a_half_times_is_tle(learner, launcher):
    """The CPU limit at its boundary, not only against an endless loop: a limit read twice too
    loosely still stops ``spin`` but lets 0.75 s of a 0.5 s allowance through."""
    with LearnerProcess(learner, launcher=launcher) as process:
        started = process.cpu_time_s()
        assert process.call("burn", [0.25], {}, timeout_s=120, cpu_deadline_s=started + 0.5, cpu_limit_s=0.5).value
        started = process.cpu_time_s()
        with pytest.raises(ProcessFailed) as failed:
            process.call("burn", [0.75], {}, timeout_s=120, cpu_deadline_s=started + 0.5, cpu_limit_s=0.5)
        assert failed.value.verdict is Verdict.TLE and "used up" in str(failed.value)


@pytest.mark.parametrize("function, fragment", [("leave", "exited (status 3)"), ("crash", "signal SIGSEGV")])
def test_an_exit_or_a_signal_reads_as_it_does_for_a_fresh_process(learner, launcher, function, fragment):
    with LearnerProcess(learner, launcher=launcher) as process, pytest.raises(ProcessFailed) as failed:
        _call(process, function)
    assert failed.value.verdict is Verdict.RE and fragment in str(failed.value)


MEMORY_LIMIT_MB = 512
MEMORY_MARGIN_MB = 32  # past the limit, and what the learner's code may lack of it (measured: < 1 MB)


def test_the_memory_limit_holds(learner, launcher):
    """Just under the limit is granted; just past it is the memory verdict (not an allocation so
    large that it fails on any machine). The limit is on top of what torch maps already."""
    with LearnerProcess(learner, memory_limit_mb=MEMORY_LIMIT_MB, launcher=launcher) as process:
        under = MEMORY_LIMIT_MB - MEMORY_MARGIN_MB
        assert process.call("take", [under], {}, timeout_s=60).value == 1
        with pytest.raises(LearnerRaised) as raised:
            process.call("take", [MEMORY_LIMIT_MB + MEMORY_MARGIN_MB], {}, timeout_s=60)
    assert raised.value.memory, raised.value


def test_a_file_just_under_16_mb_is_written_and_one_just_past_it_is_refused(learner, launcher):
    """RLIMIT_FSIZE at its boundary (docs/security.md: 16 MB a file): 15 MB is written, 17 MB is
    an error of the learner's (EFBIG), the process still answering."""
    with LearnerProcess(learner, launcher=launcher) as process:
        assert process.call("write_file", [15], {}, timeout_s=60).value == 15
        with pytest.raises(LearnerRaised) as raised:
            process.call("write_file", [17], {}, timeout_s=60)
        assert raised.value.type_name == "OSError" and "File too large" in raised.value.message, raised.value
        assert _call(process, "hello") == 1


@pytest.mark.parametrize("ending", ["closed", "killed"])
def test_nothing_the_code_starts_outlives_its_process(learner, launcher, ending):
    """Closed, its worker exits and the keeper ends the tree; killed (TLE), the judge cuts the lifeline."""
    with LearnerProcess(learner, launcher=launcher) as process:
        grandchild = _call(process, "orphan")
        assert _running(grandchild)
        if ending == "killed":
            with pytest.raises(ProcessFailed, match=r"spin\(\) did not finish within 0.5 s"):
                _call(process, "spin", timeout_s=0.5)
            assert _gone(grandchild)
    assert _gone(grandchild)


def test_once_closed_a_worker_that_would_linger_is_gone_and_so_is_its_scratch_directory(learner, launcher):
    """close() promises that every process of the job has been killed when it returns: the
    judge kills the tree, it does not wait for the worker to leave (this one would sleep at exit)."""
    with LearnerProcess(learner, launcher=launcher) as process:
        worker = _call(process, "linger")
        scratch = _call(process, "describe")["cwd"]
        assert _running(worker) and os.path.isdir(scratch)
    assert _gone(worker, within_s=10)
    assert not os.path.exists(scratch)


NO_KEEPER = """
import os, subprocess, sys, time
# A learner process where no keeper runs (not Linux): it ignores its lifeline, and has a child.
grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
os.write(1, b"%d\\n" % grandchild.pid)
time.sleep(600)
"""


def test_without_a_keeper_a_fresh_process_and_its_children_die_with_its_process_group(tmp_path, monkeypatch):
    import threading

    stand_in = tmp_path / "no_keeper.py"
    stand_in.write_text(NO_KEEPER)
    monkeypatch.setattr("judge.sandbox.launchers.CHILD_SCRIPT", stand_in)
    monkeypatch.setattr("judge.sandbox.launchers.KEEPER_EXIT_S", 0.5)
    output_read, output_write = os.pipe()
    protocol = os.pipe()
    try:
        launched = LocalLauncher().launch(
            device="cpu", memory_limit_mb=None, fd_in=protocol[0], fd_out=protocol[1], output_fd=output_write
        )
    finally:
        os.close(output_write)
    with os.fdopen(output_read) as output:
        grandchild = int(output.readline())
        pids = (launched.pid, grandchild)
        try:
            releasing = threading.Thread(target=launched.release, daemon=True)
            releasing.start()
            releasing.join(20)
            assert not releasing.is_alive(), "release() is waiting for a process its group kill missed"
            assert _gone(launched.pid) and _gone(grandchild)
        finally:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            for fd in protocol:
                os.close(fd)


# --------------------------------------------------------------------------- what only a fork could get wrong


def test_each_warm_process_starts_from_fresh_module_state(learner, warm_launcher):
    with LearnerProcess(learner, launcher=warm_launcher) as first:
        after = first.call("remember", [7], {}, timeout_s=30).value
        assert (after["seen"], after["helper"], after["left_behind"]) == ([7], 7, True)
    with LearnerProcess(learner, launcher=warm_launcher) as second:
        before = _call(second, "describe")
    assert (before["seen"], before["helper"], before["left_behind"]) == ([], 41, False)


DRAWS = """
import random, torch

def draws():
    import numpy
    return {"torch": torch.rand(4).tolist(), "random": random.random(), "numpy": float(numpy.random.rand())}
"""


@pytest.fixture(scope="module")
def strict_launcher():
    from judge.sandbox.layers import missing_required

    missing = missing_required()
    if missing:
        pytest.skip("strict sandbox unavailable here: " + ", ".join(layer.name for layer in missing))
    from judge.sandbox.strict import StrictLauncher

    launcher = StrictLauncher(slots=1)
    yield launcher
    launcher.close()


@pytest.mark.parametrize("level", ["warm", "strict"])
def test_forked_processes_do_not_share_random_generators(level, request):
    """A fork copies the generators' states: two jobs drawing without a generator must still differ
    (the strict level forks from the same kind of server)."""
    launcher = request.getfixturevalue("warm_launcher" if level == "warm" else "strict_launcher")
    draws = []
    for _ in range(2):
        with LearnerProcess(LearnerSource(DRAWS), launcher=launcher) as process:
            draws.append(_call(process, "draws"))
    for generator in ("torch", "random", "numpy"):
        assert draws[0][generator] != draws[1][generator], generator


def test_the_fork_server_ends_with_its_judge(learner, tmp_path):
    """However the judge ends (SIGKILL here), its fork server and the jobs it forked end too."""
    script = tmp_path / "judge_that_dies.py"
    script.write_text(
        textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from judge.engine.process import LearnerProcess
        from judge.sandbox.launchers import WarmLocalLauncher

        launcher = WarmLocalLauncher()
        process = LearnerProcess({str(learner)!r}, launcher=launcher)
        worker = process.call("describe", [], {{}}, timeout_s=30).value["pid"]
        print(launcher.server_pid, worker, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """)
    )
    judge = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert judge.returncode == -signal.SIGKILL, judge.stderr
    server, worker = (int(pid) for pid in judge.stdout.split())
    assert _gone(server) and _gone(worker)


def test_a_dead_server_is_replaced_and_its_running_processes_carry_on(learner):
    with WarmLocalLauncher() as launcher:
        with LearnerProcess(learner, launcher=launcher) as running:
            first_server = launcher.server_pid
            assert first_server is not None
            os.kill(first_server, signal.SIGKILL)
            assert _gone(first_server)
            assert _call(running, "hello") == 1  # its pipes are the judge's, not the server's
            worker = _call(running, "describe")["pid"]
        assert _gone(worker)  # closed without the server: the lifeline still ends it
        with LearnerProcess(learner, launcher=launcher) as replaced:
            assert _call(replaced, "describe")["start"] == "zygote.py"
            assert launcher.server_pid not in (None, first_server)


def test_a_server_that_cannot_start_leaves_fresh_processes(learner, tmp_path, monkeypatch, caplog):
    broken = tmp_path / "zygote.py"
    broken.write_text("raise SystemExit(1)\n")
    monkeypatch.setattr("judge.sandbox.zygote_client.ZYGOTE_SCRIPT", broken)
    with WarmLocalLauncher() as launcher:
        for _ in range(2):
            with LearnerProcess(learner, launcher=launcher) as process:
                assert _call(process, "describe")["start"] == "child.py"
        assert launcher.server_pid is None
    assert sum("no warm start for the local level" in r.getMessage() for r in caplog.records) == 1


def test_a_warm_start_that_fails_is_an_internal_error_and_the_server_is_replaced(learner, monkeypatch):
    import tempfile

    with WarmLocalLauncher() as launcher:
        with LearnerProcess(learner, launcher=launcher):
            first_server = launcher.server_pid

        class Vanished:  # a scratch directory gone before the job could enter it
            name = "/nonexistent/probjudge-scratch"

            def cleanup(self) -> None:
                pass

        lifelines = []

        class Recorded(Lifeline):
            def __init__(self) -> None:
                super().__init__()
                lifelines.append(f"pipe:[{os.fstat(self.read_fd).st_ino}]")

        with monkeypatch.context() as patch:
            patch.setattr(tempfile, "TemporaryDirectory", lambda **_: Vanished())
            patch.setattr("judge.sandbox.launchers.Lifeline", Recorded)
            with pytest.raises(SandboxFailure, match="could not start your process"):
                LearnerProcess(learner, launcher=launcher)
        # The failed job's lifeline is cut: neither of its ends stays open in the judge.
        assert len(lifelines) == 1 and lifelines[0] not in _open_files()
        assert _gone(first_server)
        with LearnerProcess(learner, launcher=launcher) as process:
            assert _call(process, "describe")["start"] == "zygote.py"
        assert launcher.server_pid not in (None, first_server)


class _RecordedScratch:
    """tempfile.TemporaryDirectory, recording the folders it makes (each job's scratch directory) and
    holding each object, so that only an explicit cleanup removes a folder, never the collector."""

    def __init__(self) -> None:
        import tempfile

        self.made: list[str] = []
        self._held: list = []
        self._real = tempfile.TemporaryDirectory

    def __call__(self, **kwargs):
        scratch = self._real(**kwargs)
        self.made.append(scratch.name)
        self._held.append(scratch)
        return scratch


def test_a_fresh_start_that_fails_leaves_no_scratch_directory(learner, monkeypatch):
    import tempfile

    recorded = _RecordedScratch()
    monkeypatch.setattr(tempfile, "TemporaryDirectory", recorded)

    def no_python(*args, **kwargs):
        raise OSError("no python here")

    monkeypatch.setattr(subprocess, "Popen", no_python)
    with pytest.raises(SandboxFailure, match="could not start a Python process"):
        LearnerProcess(learner, launcher=LocalLauncher())
    assert len(recorded.made) == 1 and not os.path.exists(recorded.made[0])


def test_a_warm_start_interrupted_leaves_no_scratch_directory(learner, monkeypatch):
    import tempfile

    from judge.sandbox.zygote_client import Zygote

    with WarmLocalLauncher() as launcher:
        with LearnerProcess(learner, launcher=launcher):  # the server is up
            pass
        recorded = _RecordedScratch()

        def interrupted(self, **kwargs):
            raise KeyboardInterrupt("interrupted while the server forks")

        with monkeypatch.context() as patch:
            patch.setattr(tempfile, "TemporaryDirectory", recorded)
            patch.setattr(Zygote, "spawn", interrupted)
            with pytest.raises(KeyboardInterrupt, match="interrupted while the server forks"):
                LearnerProcess(learner, launcher=launcher)
        assert len(recorded.made) == 1 and not os.path.exists(recorded.made[0])


def test_cuda_processes_start_fresh(learner, warm_launcher):
    """The fork server never touches CUDA, and a cuda job does not ask it: it starts fresh."""
    with LearnerProcess(learner, device="cuda", launcher=warm_launcher) as process:
        process.wait_ready()  # no call: this machine may have no CUDA, and loading needs none
        assert "started by child.py" in process.output_tail()


def test_a_closed_launcher_starts_fresh_processes(learner):
    launcher = WarmLocalLauncher()
    with LearnerProcess(learner, launcher=launcher) as process:
        server = launcher.server_pid
        assert _call(process, "describe")["start"] == "zygote.py"
    launcher.close()
    launcher.close()  # idempotent
    assert _gone(server) and launcher.server_pid is None
    with LearnerProcess(learner, launcher=launcher) as process:
        assert _call(process, "describe")["start"] == "child.py"


def _open_files() -> set[str]:
    """What the judge's file descriptors point to (``pipe:[inode]`` for a pipe)."""
    targets = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            targets.add(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:  # the descriptor of the listing itself, closed by now
            pass
    return targets


def _gone(pid: int, within_s: float = 30.0) -> bool:
    """Whether ``pid`` ends (or is a zombie) within ``within_s``: a liveness bound, not a timing."""
    deadline = time.monotonic() + within_s
    while _running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
