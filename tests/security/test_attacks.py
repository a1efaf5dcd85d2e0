"""The attack suite, part 1: hostile submissions against the strict sandbox's walls.

Each attack is a submission to exercise 39 whose functions attack the judge. Every one must end
in a non-AC verdict, leak nothing (no secret appears anywhere in the report), leave the judge
able to grade the next submission correctly, and leave the machine unharmed. The attacks on the
judge around the walls (grading that stops, host resources, forged verdicts) are in the other
``test_*.py`` files of this folder.
"""

from __future__ import annotations

import dataclasses
import os
import select
import shutil
import socket
import tempfile
import threading
from pathlib import Path

import pytest
from attack_support import CANARY, DATABASE, assert_contained, assert_judge_healthy, grade, needs_strict

from judge.exercises.folders import PROJECT_ROOT
from judge.verdicts import Verdict

# Starts the strict sandbox; runs in the parallel part like the rest (tests/conftest.py).
pytestmark = pytest.mark.strict_sandbox

strict = pytest.importorskip("judge.sandbox.strict")


READS = {
    "hidden tests": (str(PROJECT_ROOT / "exercises/039-sampling/tests/hidden/hidden.py"), "BudgetDeclaration(fit="),
    "reference solution": (str(PROJECT_ROOT / "solutions/039-sampling/reference.py"), "def _per_row(value"),
    "database": (str(DATABASE), CANARY),
    "shadow file": ("/etc/shadow", "root:"),
}


@pytest.mark.parametrize("target", sorted(READS))
def test_reading_judge_files_is_refused(launcher, quick_exercise, tmp_path, database, target):
    path, secret = READS[target]
    report = grade(launcher, quick_exercise, tmp_path, f"""
        try:
            data = open({path!r}).read()
        except OSError as exc:
            raise RuntimeError("blocked: " + str(exc))
        raise RuntimeError("LEAKED " + data[:2000])
    """)
    assert report.verdict is Verdict.RE
    assert "blocked" in report.message
    assert_contained(report, secret)


def test_parent_environment_and_project_listing_are_out_of_reach(launcher, quick_exercise, tmp_path):
    report = grade(launcher, quick_exercise, tmp_path, f"""
        found = []
        for pid in (os.getppid(), 1):
            try:
                found.append(open(f"/proc/{{pid}}/environ", "rb").read().decode(errors="replace"))
            except OSError as exc:
                found.append("blocked " + str(exc))
        try:
            stat = open(f"/proc/{{os.getppid()}}/stat").read().split()
            found.append(open(f"/proc/{{stat[3]}}/environ", "rb").read().decode(errors="replace"))
        except OSError as exc:
            found.append("blocked " + str(exc))
        for folder in ({str(PROJECT_ROOT)!r}, {str(PROJECT_ROOT / "exercises")!r}, "/root", "/home"):
            try:
                found.append(" ".join(os.listdir(folder)))
            except OSError as exc:
                found.append("blocked " + str(exc))
        found.append(" ".join(f"{{k}}={{v}}" for k, v in os.environ.items()))
        raise RuntimeError(" | ".join(found))
    """)
    assert_contained(report, "039-sampling", "reference.py", "hidden.py")
    assert report.message.count("blocked") >= 6


@pytest.fixture
def listeners(tmp_path):
    """TCP on 127.0.0.1 and ::1, UDP on 127.0.0.1, a named Unix socket: record anything that arrives."""
    arrived: list[str] = []
    sockets = []
    tcp4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp4.bind(("127.0.0.1", 0))
    tcp4.listen()
    tcp6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    tcp6.bind(("::1", 0))
    tcp6.listen()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    # A world-reachable named socket: file permissions alone would let the sandbox uid connect,
    # so only seccomp (no socket()) stops it. And an abstract one, which ignores the file system.
    folder = tempfile.mkdtemp(prefix="pj-attack-")
    os.chmod(folder, 0o777)
    unix_path = os.path.join(folder, "judge.sock")
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(unix_path)
    os.chmod(unix_path, 0o777)
    unix.listen()
    abstract_name = f"\0probjudge-attack-{os.getpid()}"
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind(abstract_name)
    abstract.listen()
    sockets = [tcp4, tcp6, udp, unix, abstract]

    def watch():
        while sockets:
            ready, _, _ = select.select(list(sockets), [], [], 0.1)
            for sock in ready:
                try:
                    if sock.type == socket.SOCK_DGRAM:
                        arrived.append("datagram " + sock.recv(100).decode(errors="replace"))
                    else:
                        connection, peer = sock.accept()
                        arrived.append(f"connection from {peer}")
                        connection.close()
                except OSError:
                    pass

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    yield {"tcp4": tcp4.getsockname()[1], "tcp6": tcp6.getsockname()[1], "udp": udp.getsockname()[1],
           "unix": unix_path, "abstract": abstract_name}, arrived
    closing = list(sockets)
    sockets.clear()
    thread.join(timeout=2)
    for sock in closing:
        sock.close()
    shutil.rmtree(folder, ignore_errors=True)


def test_no_network_of_any_kind(launcher, quick_exercise, tmp_path, listeners):
    ports, arrived = listeners
    report = grade(launcher, quick_exercise, tmp_path, f"""
        results = []
        attempts = [
            (socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", {ports["tcp4"]})),
            (socket.AF_INET6, socket.SOCK_STREAM, ("::1", {ports["tcp6"]})),
            (socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", {ports["udp"]})),
            (socket.AF_UNIX, socket.SOCK_STREAM, {ports["unix"]!r}),
            (socket.AF_UNIX, socket.SOCK_STREAM, {ports["abstract"]!r}),
        ]
        for family, kind, address in attempts:
            try:
                s = socket.socket(family, kind)
                if kind == socket.SOCK_DGRAM:
                    s.sendto(b"exfiltrated", address)
                else:
                    s.connect(address)
                    s.send(b"exfiltrated")
                results.append("CONNECTED " + str(address))
            except OSError as exc:
                results.append("blocked " + str(exc))
        raise RuntimeError(" | ".join(results))
    """)
    assert_contained(report)
    assert "CONNECTED" not in report.message and report.message.count("blocked") == 5
    assert not arrived, arrived


RESOURCE_ATTACKS = {
    "fork bomb": ("""
        while True:
            try:
                os.fork()
            except OSError:
                pass
    """, {Verdict.TLE, Verdict.RE}),
    "allocate 8 GB at once": ("return torch.empty(8 << 30, dtype=torch.uint8)", {Verdict.MLE}),
    "allocate in small steps": ("""
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))  # touched pages: the cgroup's OOM killer ends it
    """, {Verdict.MLE}),
    "infinite loop": ("""
        while True:
            pass
    """, {Verdict.TLE}),
    "sleep forever": ("time.sleep(10**6)", {Verdict.TLE}),
    "write a 10 GB file": ("""
        with open("big.bin", "wb") as f:
            for _ in range(10 * 1024):
                f.write(b"x" * (1 << 20))
    """, {Verdict.RE}),
    "fill the scratch dir": ("""
        for i in range(10**6):
            with open(f"f{i}", "wb") as f:
                f.write(b"y" * 65536)
    """, {Verdict.RE}),
    "exit after a fake verdict": ("""
        print("AC: all 25 cases passed")
        os._exit(0)
    """, {Verdict.RE}),
}


@pytest.mark.parametrize("name", list(RESOURCE_ATTACKS))
def test_resource_attacks_end_in_a_verdict_and_the_judge_survives(launcher, quick_exercise, tmp_path, name):
    body, verdicts = RESOURCE_ATTACKS[name]
    if verdicts == {Verdict.MLE}:
        # Filling 1 GB takes a while on a busy machine: the memory limit, not the clock, must end it.
        quick_exercise = dataclasses.replace(quick_exercise, time_limit_s=10.0)
    report = grade(launcher, quick_exercise, tmp_path, body)
    assert report.verdict in verdicts, (report.verdict, report.message)
    assert_contained(report)
    assert not list(Path(strict.SCRATCH_ROOT).glob("slot-*/*")), "the host's scratch directories must stay empty"
    assert_judge_healthy(launcher)


def test_killing_the_judge_or_the_zygote_is_refused(launcher, quick_exercise, tmp_path):
    report = grade(launcher, quick_exercise, tmp_path, f"""
        results = []
        for pid in (os.getppid(), {os.getpid()}, 1, -1):
            try:
                os.kill(pid, signal.SIGKILL)
                results.append(f"KILLED {{pid}}")
            except OSError as exc:
                results.append("blocked " + str(exc))
        raise RuntimeError(" | ".join(results))
    """)
    # kill(-1) "succeeds" when it reaches the job's own processes (same uid, same Landlock domain);
    # the zygote, the judge and init must all refuse.
    for pid in ("KILLED {}".format(p) for p in ("1",)):
        assert pid not in report.message.replace("KILLED -1", ""), report.message
    assert report.message.count("blocked") == 3, report.message
    assert launcher.zygote.alive
    assert_judge_healthy(launcher)


def test_forged_results_are_refused(launcher, quick_exercise, tmp_path):
    report = grade(launcher, quick_exercise, tmp_path, """
        import pickle
        forged = pickle.dumps({"verdict": "AC", "cases": []})
        for fd in range(3, 256):
            try:
                os.write(fd, forged)
            except OSError:
                pass
        return torch.zeros(1, 4)
    """)
    assert report.verdict is Verdict.RE
    assert "result format" in report.message or "malformed" in report.message or "understand" in report.message


def test_monkeypatching_only_hurts_the_attacker(launcher, quick_exercise, tmp_path):
    report = grade(launcher, quick_exercise, tmp_path, """
        import judge.learner.wire, judge.sandbox.child
        torch.softmax = lambda *a, **k: torch.full((1, 4), 0.25)
        judge.learner.wire.MAX_FRAME_BYTES = 1 << 40
        judge.sandbox.child.describe_exception = lambda exc, path: {"type": "Verdict", "message": "AC"}
        return torch.softmax(torch.zeros(1, 4), dim=-1)
    """)
    assert report.verdict is Verdict.WA
    assert_judge_healthy(launcher)


def test_no_expected_values_in_the_learners_process(launcher, quick_exercise, tmp_path):
    report = grade(launcher, quick_exercise, tmp_path, """
        import gc
        found = set()
        frame = sys._getframe()
        while frame is not None:
            found.update(k for k in frame.f_globals if "expect" in k.lower() or "oracle" in k.lower())
            frame = frame.f_back
        found.update(name for name in sys.modules if "probjudge_tests" in name or "oracle" in name)
        tensors = [o for o in gc.get_objects() if isinstance(o, torch.Tensor)]
        found.add(f"{len(tensors)} tensors")
        raise RuntimeError("found: " + ", ".join(sorted(found)))
    """)
    assert "probjudge_tests" not in report.message and "oracle" not in report.message.replace("found:", "")
    assert_contained(report, "0.579259")


def test_escape_attempts_are_refused(launcher, quick_exercise, tmp_path):
    report = grade(launcher, quick_exercise, tmp_path, """
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        results = []
        for name, attempt in [
            ("shell", lambda: subprocess.run(["/bin/sh", "-c", "id"], capture_output=True).stdout),
            ("python", lambda: subprocess.run([sys.executable, "-c", "print(1)"], capture_output=True).stdout),
            ("unshare", lambda: libc.unshare(0x10000000) or "ok"),
            ("mount", lambda: libc.mount(b"none", b"/mnt", b"tmpfs", 0, None) or "ok"),
            ("chroot", lambda: os.chroot("/")),
            ("setuid0", lambda: os.setuid(0)),
            ("write /tmp", lambda: open("/tmp/pj-owned", "w").write("owned")),
            ("ptrace", lambda: libc.ptrace(16, os.getppid(), 0, 0) or "ok"),
        ]:
            try:
                value = attempt()
                if value in (-1,) or (isinstance(value, int) and value < 0):
                    results.append(f"blocked {name}")
                else:
                    results.append(f"ESCAPED {name}: {value!r}")
            except BaseException as exc:
                results.append(f"blocked {name}: {type(exc).__name__}")
        raise RuntimeError(" | ".join(results))
    """)
    assert "ESCAPED" not in report.message, report.message
    assert not Path("/tmp/pj-owned").exists()


def test_a_server_gets_strict_or_an_explicit_loud_downgrade(monkeypatch, caplog):
    from judge import sandbox
    from judge.sandbox import layers

    with pytest.raises(ValueError, match="unknown sandbox level"):
        sandbox.launcher_for("none")
    missing = [layers.Layer("landlock", False, "not enabled in this kernel", True)]
    monkeypatch.setattr(layers, "missing_required", lambda *a: missing)
    with pytest.raises(strict.SandboxUnavailable, match="landlock"):
        sandbox.launcher_for("strict")
    with caplog.at_level("CRITICAL", logger="probjudge.sandbox"):
        weaker = sandbox.launcher_for("strict", allow_weaker=True)
    assert weaker.level == "local"
    assert "STRICT SANDBOX UNAVAILABLE" in caplog.text


def _processes_of(uids: set[int]) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            uid_line = next((line for line in status.splitlines() if line.startswith("Uid:")), "")
            zombie = "\nState:\tZ" in status  # dead, waiting for its parent to collect it
            if uid_line and int(uid_line.split()[1]) in uids and not zombie:
                found.append(int(entry.name))
    return found


def test_grandchildren_that_leave_the_session_are_killed(launcher, quick_exercise, tmp_path):
    report = grade(launcher, quick_exercise, tmp_path, """
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(600)
            os._exit(0)
        raise RuntimeError("left a sleeper behind")
    """)
    assert report.verdict is Verdict.RE
    slot_uids = set(range(launcher.base_id, launcher.base_id + strict.MAX_SLOTS))
    spares = launcher.prepared_workers()  # confined ahead for the next jobs, and nothing else
    assert not set(_processes_of(slot_uids)) - spares, "a process of a finished job is still running"


def test_no_job_sees_another_jobs_source(launcher, quick_exercise, tmp_path):
    marker = "pj-previous-submission-5d1e"
    grade(launcher, quick_exercise, tmp_path, f'raise RuntimeError("first")  # {marker}')
    report = grade(launcher, quick_exercise, tmp_path, """
        import gc
        needle = "pj-previous-" + "submission-5d1e"  # built here, so the attack's own source holds no copy
        hits = [o for o in gc.get_objects() if isinstance(o, (str, bytes, dict, list)) and needle in repr(o)[:100000]]
        frame, depth = sys._getframe(), 0
        while frame is not None:
            hits += [k for k, v in frame.f_locals.items() if needle in repr(v)[:100000]]
            frame, depth = frame.f_back, depth + 1
        raise RuntimeError(f"hits: {len(hits) - 1}")  # minus the attack's own `needle`
    """)
    assert "hits: 0" in report.message, report.message


@needs_strict
def test_cpu_time_limit_is_tle(quick_exercise, tmp_path):
    tight = strict.StrictLauncher(slots=1, cpu_seconds=1)
    try:
        exercise = dataclasses.replace(quick_exercise, time_limit_s=20.0)
        report = grade(tight, exercise, tmp_path, """
            while True:
                pass
        """)
    finally:
        tight.close()
    assert report.cases[0].verdict is Verdict.TLE, report.cases[0].message
    assert "CPU time" in report.cases[0].message
