"""The learner process: every way learner code can misbehave becomes a verdict, never a judge crash."""

from __future__ import annotations

import pytest
import torch

from judge.engine.process import CallOptions, LearnerProcess, LearnerRaised, LoadFailed, ProcessFailed
from judge.sandbox.launchers import STARTUP_CPU_ALLOWANCE_S, LocalLauncher
from judge.verdicts import Verdict

ECHO = """
    import torch

    def double(x):
        print("hello from the learner")
        return x * 2

    def fails(x):
        return helper(x)

    def helper(x):
        raise ValueError("bad x: " + str(x))

    def spin():
        while True:
            pass

    def leave():
        import os
        os._exit(0)

    def nap(seconds):
        import time
        time.sleep(seconds)
        return seconds

    def take(megabytes):
        held = torch.ones(megabytes << 20, dtype=torch.uint8)  # every page written
        return int(held[-1])

    def draw(generator=None):
        return torch.rand(10_000, generator=generator)

    def global_draw():
        return torch.rand(5)

    def unsendable():
        return object()
"""


ECHO_MEMORY_MB = 1024


@pytest.fixture
def echo(learner_file):
    with LearnerProcess(learner_file(ECHO), memory_limit_mb=ECHO_MEMORY_MB) as process:
        yield process


def test_calls_return_tensors_and_printing_does_not_disturb_the_protocol(echo):
    value, elapsed = echo.call("double", [torch.arange(4)], {}, timeout_s=10)
    assert torch.equal(value, torch.arange(4) * 2)
    assert elapsed >= 0
    assert "hello from the learner" in echo.output_tail()
    assert "double" in echo.functions and echo.functions["double"].params[0].name == "x"


def test_learner_exceptions_carry_only_learner_frames(echo):
    with pytest.raises(LearnerRaised) as raised:
        echo.call("fails", [3], {}, timeout_s=10)
    error = raised.value
    assert error.type_name == "ValueError" and error.message == "bad x: 3"
    assert "solution.py" in error.traceback and "helper" in error.traceback
    assert "judge" not in error.traceback and "child.py" not in error.traceback
    # The process survives a raised exception and answers the next call.
    assert torch.equal(echo.call("double", [torch.ones(1)], {}, timeout_s=10).value, torch.full((1,), 2.0))


def test_infinite_loop_is_tle_and_the_process_is_gone(echo):
    with pytest.raises(ProcessFailed) as failed:
        echo.call("spin", [], {}, timeout_s=0.5)
    assert failed.value.verdict is Verdict.TLE
    assert not echo.alive


def test_a_call_that_sleeps_a_fifth_of_its_wall_time_answers_and_one_of_twice_is_tle(echo):
    """The wall clock at its boundary, not only against an endless loop: sleeping burns no CPU,
    so only ``timeout_s`` (2 s here) can end the second call."""
    assert echo.call("nap", [0.4], {}, timeout_s=2).value == 0.4
    with pytest.raises(ProcessFailed) as failed:
        echo.call("nap", [4], {}, timeout_s=2)
    assert failed.value.verdict is Verdict.TLE, failed.value
    assert not echo.alive


def test_exiting_midway_is_a_runtime_error(echo):
    with pytest.raises(ProcessFailed) as failed:
        echo.call("leave", [], {}, timeout_s=10)
    assert failed.value.verdict is Verdict.RE
    assert "exit" in str(failed.value)


def test_allocation_past_the_memory_limit_is_mle(echo):
    """32 MB under the limit is granted (the limit is on top of what torch maps), 32 MB past it is not."""
    assert echo.call("take", [ECHO_MEMORY_MB - 32], {}, timeout_s=60).value == 1
    with pytest.raises(LearnerRaised) as raised:
        echo.call("take", [ECHO_MEMORY_MB + 32], {}, timeout_s=60)
    assert raised.value.memory, raised.value


def test_runaway_output_is_stopped(learner_file):
    source = """
        def chatter():
            line = "x" * 1023 + "\\n"
            while True:
                print(line, end="")
    """
    with LearnerProcess(learner_file(source)) as process:
        with pytest.raises(ProcessFailed) as failed:
            process.call("chatter", [], {}, timeout_s=60)
        assert failed.value.verdict is Verdict.RE
        assert "printed more than 16 MB" in str(failed.value)
        assert not process.alive  # stopped at once: the judge keeps only the last few kB
        assert len(process.output_tail()) <= 4000


def test_printing_just_under_16_mb_is_kept_and_just_past_it_is_re(learner_file):
    """The limit (docs/security.md: 16 MB printed, all calls of one process together) at its
    boundary: 15 MB printed is an answer, one more call that takes the total to 17 MB is RE."""
    source = """
        import sys

        def chatter(megabytes):
            line = "x" * 1023 + "\\n"
            for _ in range(megabytes * 1024):
                sys.stdout.write(line)
            sys.stdout.flush()
            return megabytes
    """
    with LearnerProcess(learner_file(source)) as process:
        assert process.call("chatter", [15], {}, timeout_s=120).value == 15
        assert process.alive
        with pytest.raises(ProcessFailed) as failed:
            process.call("chatter", [2], {}, timeout_s=120)
        assert failed.value.verdict is Verdict.RE and "printed more than 16 MB" in str(failed.value)


def test_unsendable_return_values_are_a_clear_error(echo):
    with pytest.raises(LearnerRaised, match="returned"):
        echo.call("unsendable", [], {}, timeout_s=10)


def test_extreme_uniforms_hit_both_ends_without_touching_the_generator_stream(echo):
    plain, _ = echo.call("draw", [], {"generator": _generator(5)}, timeout_s=10)
    extreme, _ = echo.call("draw", [], {"generator": _generator(5)}, timeout_s=10,
                           options=CallOptions(extreme_uniforms=1))
    top = torch.tensor(1.0).nextafter(torch.tensor(0.0))
    assert (extreme == 0).any() and (extreme == top).any()
    changed = extreme != plain
    assert 0.005 < changed.float().mean() < 0.05
    assert torch.equal(extreme[~changed], plain[~changed])


def test_global_seed_option_seeds_torch_default_generator(echo):
    first, _ = echo.call("global_draw", [], {}, timeout_s=10, options=CallOptions(global_seed=3))
    second, _ = echo.call("global_draw", [], {}, timeout_s=10, options=CallOptions(global_seed=3))
    third, _ = echo.call("global_draw", [], {}, timeout_s=10)
    assert torch.equal(first, second) and not torch.equal(first, third)
    # What torch.manual_seed(3) then torch.rand(5) give: the seeding is torch's own, on the CPU.
    assert torch.equal(first, torch.rand(5, generator=torch.Generator().manual_seed(3)))


def _generator(seed):
    from judge.learner.wire import GeneratorSpec

    return GeneratorSpec(seed)


@pytest.mark.parametrize("source, verdict, fragment", [
    ("def f(:\n    pass\n", Verdict.CE, "line 1"),
    ("import numpy_does_not_exist_here\n", Verdict.CE, "import error"),
    ("x = 1\nraise RuntimeError('at import')\n", Verdict.RE, "line 2"),
])
def test_files_that_do_not_load(learner_file, source, verdict, fragment):
    with pytest.raises(LoadFailed) as failed:
        LearnerProcess(learner_file(source))
    assert failed.value.verdict is verdict
    assert fragment in str(failed.value)


def test_a_file_that_is_not_utf8_is_a_compile_error(tmp_path):
    path = tmp_path / "latin1.py"
    path.write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    with pytest.raises(LoadFailed) as failed:
        LearnerProcess(path)
    assert failed.value.verdict is Verdict.CE and "UTF-8" in str(failed.value)


def test_a_file_that_hangs_at_import_is_tle(learner_file):
    """It spins, so its CPU time stops it: the load time plus the start's CPU allowance (the
    default, 15 s), not a wall clock that must allow a minute for a slow start. The wall clock is
    set far off here, so only the CPU bound can end it, however busy the machine."""
    launcher = LocalLauncher(startup_allowance_s=600.0)
    assert launcher.startup_cpu_allowance_s == STARTUP_CPU_ALLOWANCE_S == 15.0
    with pytest.raises(ProcessFailed) as failed:
        LearnerProcess(learner_file("while True:\n    pass\n"), load_timeout_s=3, launcher=launcher)
    assert failed.value.verdict is Verdict.TLE
    assert "loading your file used up its CPU time of 18 s" in str(failed.value), str(failed.value)


def test_a_file_that_sleeps_at_import_is_tle_by_the_wall_clock(learner_file):
    """Sleeping burns no CPU: the wall clock stops it (here with a start allowance of 2 s, not a minute)."""
    launcher = LocalLauncher(startup_allowance_s=2.0)
    with pytest.raises(ProcessFailed) as failed:
        LearnerProcess(learner_file("import time\ntime.sleep(600)\n"), load_timeout_s=1, launcher=launcher)
    assert failed.value.verdict is Verdict.TLE
    assert "loading your file did not finish within 3.0 s" in str(failed.value)


def test_forged_bytes_on_the_result_pipe_are_a_runtime_error(learner_file):
    source = """
        import os, pickle

        def forge():
            for fd in range(3, 1024):
                try:
                    os.write(fd, pickle.dumps({"verdict": "AC"}))
                except OSError:
                    pass
            return 1
    """
    with LearnerProcess(learner_file(source)) as process:
        with pytest.raises(ProcessFailed) as failed:
            process.call("forge", [], {}, timeout_s=10)
    assert failed.value.verdict is Verdict.RE


def test_the_child_environment_holds_none_of_the_judges_secrets(learner_file, monkeypatch):
    monkeypatch.setenv("PROBJUDGE_SECRET_TOKEN", "s3cret")
    source = """
        import os

        def environment():
            return sorted(os.environ)
    """
    with LearnerProcess(learner_file(source)) as process:
        names, _ = process.call("environment", [], {}, timeout_s=10)
    assert "PROBJUDGE_SECRET_TOKEN" not in names


def test_a_forged_but_well_formed_frame_is_a_runtime_error_not_an_internal_one(learner_file):
    source = """
        import os
        from judge.learner import wire

        def forge():
            for fd in range(3, 1024):
                try:
                    wire.write_frame(os.fdopen(os.dup(fd), "wb"), {"ok": True, "value": {"$generator": "x"},
                                                                  "tensors": []})
                except OSError:
                    pass
            return 1
    """
    with LearnerProcess(learner_file(source)) as process:
        with pytest.raises(ProcessFailed) as failed:
            process.call("forge", [], {}, timeout_s=10)
    assert failed.value.verdict is Verdict.RE


def test_a_call_returns_its_value_time_and_modified_inputs_together(learner_file):
    path = learner_file("""
        def scale(x):
            x.mul_(2)
            return x.sum()
    """)
    with LearnerProcess(path) as process:
        result = process.call("scale", [torch.ones(3)], {}, timeout_s=30)
        assert result.value == 6.0 and result.elapsed_ms >= 0 and result.modified == ("x",)
        value, elapsed = result  # unpacks as (value, elapsed_ms)
        assert value == 6.0 and not hasattr(process, "modified_inputs")


def test_the_source_goes_to_the_child_as_text_in_a_load_frame():
    """Whatever the launcher, LearnerProcess writes the same first frame: the source, never a path."""
    import os
    import threading

    from judge.learner import wire
    from judge.learner.interface import LearnerSource

    frames = []

    class Recorded:
        pid = 0

        def poll(self):
            return None

        def wait(self, timeout):
            return None

        def kill(self):
            pass

        def memory_exceeded(self):
            return False

        def cpu_time_s(self):
            return 0.0

        def release(self):
            pass

    class Recording:
        startup_allowance_s = 0.0

        def __init__(self, level):
            self.level = level

        def launch(self, *, device, memory_limit_mb, fd_in, fd_out, output_fd, import_dir=None):
            inbox = os.fdopen(os.dup(fd_in), "rb", buffering=0)
            reader = threading.Thread(target=lambda: frames.append((self.level, import_dir, wire.read_frame(inbox)[0])))
            reader.start()
            self.reader = reader
            return Recorded()

        def close(self):
            pass

    source = LearnerSource("def f():\n    return 1\n", "mine.py", "/somewhere")
    for level in ("local", "strict"):
        launcher = Recording(level)
        process = LearnerProcess(source, wait=False, launcher=launcher)
        launcher.reader.join(10)
        process.close()
    assert [f[0] for f in frames] == ["local", "strict"]
    assert all(f[1] == "/somewhere" for f in frames)  # the local level uses it; strict ignores it
    assert frames[0][2] == frames[1][2] == {"op": "load", "source": source.text, "filename": "mine.py", "tensors": []}


@pytest.mark.parametrize("data, fragment", [
    (b"x = 1\n" + b"#" * (512 << 10), "larger than 512 kB"),
    ("x = 'caf\xe9'\n".encode("latin-1"), "not valid UTF-8"),
])
def test_size_and_encoding_are_checked_in_one_place(tmp_path, data, fragment):
    """A file and a text go through the same check (judge.learner.interface.checked_source): CE, same message."""
    from judge.learner.interface import LearnerSource, checked_source

    with pytest.raises(LoadFailed) as direct:
        checked_source(data)
    path = tmp_path / "solution.py"
    path.write_bytes(data)
    with pytest.raises(LoadFailed) as from_file:
        LearnerProcess(path)
    assert direct.value.verdict is from_file.value.verdict is Verdict.CE
    assert fragment in str(direct.value) and str(direct.value) == str(from_file.value)
    if fragment.startswith("larger"):
        with pytest.raises(LoadFailed) as from_text:
            LearnerSource(data.decode()).load_frame()
        assert str(from_text.value) == str(direct.value)


def test_an_unreadable_file_is_a_compile_error(tmp_path):
    with pytest.raises(LoadFailed) as failed:
        LearnerProcess(tmp_path / "missing.py")
    assert failed.value.verdict is Verdict.CE and "cannot be read" in str(failed.value)


def test_both_learners_answer_the_learner_protocol_alike(echo):
    """Each member of judge.learner.interface.Learner, read of the child process and of the browser's
    in-process learner on the same code: the runner may drive either and read the same answers."""
    import textwrap

    from judge.browser.learner import InProcessLearner

    in_process = InProcessLearner(textwrap.dedent(ECHO))
    try:
        for learner, sandbox in ((echo, "local"), (in_process, "browser")):
            assert learner.sandbox == sandbox and learner.alive
            assert learner.torch_version == torch.__version__
            assert [p.name for p in learner.functions["draw"].params] == ["generator"]
            assert set(learner.functions) >= {"double", "fails", "helper", "spin", "leave", "take", "draw"}
            result = learner.call("double", [torch.arange(4)], {}, timeout_s=10)
            assert torch.equal(result.value, torch.arange(4) * 2) and result.modified == ()
            assert "hello from the learner" in learner.output_tail()
            with pytest.raises(LearnerRaised, match=r"^ValueError: bad x: 3$") as raised:
                learner.call("fails", [3], {}, timeout_s=10)
            assert "in helper" in raised.value.traceback
    finally:
        in_process.close()


# --- the pipes: a frame far larger than the pipe, of more buffers than one writev takes, both ways ---

def _big_value():
    generator = torch.Generator().manual_seed(5)
    return {"many": [torch.arange(i % 7) for i in range(700)],  # past IOV_BATCH buffers in one frame
            "large": torch.rand(3 << 18, generator=generator, dtype=torch.float64)}  # 6 MB: many pipe-fulls


def _same_value(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def test_a_frame_larger_than_the_pipe_crosses_the_judges_pipes_whole():
    """The judge's non-blocking writer and reader (partial writes, waits, readv) against the child's."""
    import os
    import threading
    import time

    from judge.engine.pipes import DeadlineReader, DeadlineWriter, OutputCapture
    from judge.learner import wire
    from judge.sandbox.child import _PipeReader, _PipeWriter

    value = _big_value()
    output = OutputCapture()
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    writer, reader = DeadlineWriter(to_child_w, output), DeadlineReader(from_child_r, output)
    writer.deadline = reader.deadline = time.monotonic() + 30  # a lost byte is a TimeoutError, not a hang
    child_saw = []

    def child_echoes():  # the child's side: read the request, send it back
        header, payloads = wire.read_frame(_PipeReader(to_child_r))  # EOFError when the judge gives up
        child_saw.append(wire.decode_values(header["value"], header["tensors"], payloads))
        specs, out = [], []
        echoed = {"value": wire.encode_values(child_saw[0], specs, out), "tensors": specs}
        wire.write_frame(_PipeWriter(from_child_w), echoed, out)

    try:
        echo = threading.Thread(target=child_echoes)
        echo.start()
        specs, payloads = [], []
        sent = {"value": wire.encode_values(value, specs, payloads), "tensors": specs}
        wire.write_frame(writer, sent, payloads)
        header, payloads_back = wire.read_frame(reader)
        echo.join(30)
        back = wire.decode_answer(header["value"], header["tensors"], payloads_back)
    finally:
        for fd in (to_child_r, to_child_w, from_child_r, from_child_w):
            os.close(fd)
        output.close()
    assert _same_value(child_saw[0], value) and _same_value(back, value)
    total = sum(spec["nbytes"] for spec in specs)
    assert writer.sent > total and reader.received == writer.sent  # whole frames, counted alike both ways


def test_an_output_that_has_ended_is_not_watched_while_the_judge_waits(monkeypatch):
    """Once the learner's output is at its end (every writer gone), a wait for the answer sleeps
    in one select until its deadline: an ended pipe is always readable, and watching it would
    spin the judge for as long as the learner computes."""
    import os
    import select
    import time

    from judge.engine import pipes

    output = pipes.OutputCapture()
    os.write(output.write_fd, b"last words\n")
    output.handed_over()  # the learner's copy is gone too: end of file after its last words
    never_ready, other_end = os.pipe()
    calls, original = [], select.select

    def counted(*args):
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(pipes.select, "select", counted)
    started = time.monotonic()
    try:
        with pytest.raises(TimeoutError) as waited:
            pipes.wait_until_ready(never_ready, started + 0.3, output, write=False)
    finally:
        os.close(never_ready)
        os.close(other_end)
        output.close()
    assert output.tail() == "last words\n"
    assert len(calls) <= 3, f"{len(calls)} wake-ups in 0.3 s"
    assert waited.value.args == () and time.monotonic() - started >= 0.3  # the deadline's, not sooner


def test_a_learner_that_stops_reading_costs_the_judges_write_its_deadline_not_a_spin(tmp_path):
    """A child that never reads its requests fills the pipe: the judge's write of a frame larger
    than it waits for room (draining what the child prints meanwhile) and raises TimeoutError at
    its deadline, with the bytes that fitted sent and nothing more."""
    import os
    import subprocess
    import sys
    import threading
    import time

    from judge.engine.pipes import DeadlineWriter, OutputCapture

    output = OutputCapture()
    requests_r, requests_w = os.pipe()
    script = "import time; print('busy, not reading', flush=True); time.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", script], stdin=requests_r, stdout=output.write_fd,
                             stderr=output.write_fd, cwd=tmp_path)
    os.close(requests_r)
    output.handed_over()
    writer, outcome = DeadlineWriter(requests_w, output), []

    def write_a_large_frame():
        try:
            writer.write(b"x" * (4 << 20))
        except Exception as error:  # what the write ended with: a TimeoutError, or a broken pipe once the child is gone
            outcome.append(error)

    started = time.monotonic()
    writer.deadline = started + 1.0
    thread = threading.Thread(target=write_a_large_frame, daemon=True)
    try:
        thread.start()
        thread.join(15)
        waited = time.monotonic() - started
    finally:
        child.kill()  # a writer still spinning gets a broken pipe now, and ends
        child.wait()
        thread.join(15)
        writer.close()
        tail = output.tail()
        output.close()
    assert len(outcome) == 1 and type(outcome[0]) is TimeoutError, outcome
    assert 1.0 <= waited < 10, waited
    assert 0 < writer.sent < 4 << 20
    assert "busy, not reading" in tail


def test_wait_until_ready_is_told_by_name_which_way_it_waits():
    """``write`` and ``watch`` are keyword-only: a bare True or False at a call site would not say
    whether the judge waits to write a request or to read an answer."""
    import os
    import time

    from judge.engine import pipes

    output = pipes.OutputCapture()
    read_end, write_end = os.pipe()
    try:
        with pytest.raises(TypeError, match="3 positional arguments but 4 were given"):
            pipes.wait_until_ready(write_end, time.monotonic() + 5, output, True)
        pipes.wait_until_ready(fd=write_end, deadline=time.monotonic() + 5, output=output, write=True)  # room: at once
    finally:
        os.close(read_end)
        os.close(write_end)
        output.close()


def test_a_closed_process_leaves_no_file_descriptor_open_in_the_judge(learner_file):
    import os

    def open_fds() -> set[int]:
        return {int(fd) for fd in os.listdir("/proc/self/fd") if os.path.exists(f"/proc/self/fd/{fd}")}

    path = learner_file(ECHO)
    with LearnerProcess(path, launcher=LocalLauncher()) as warm_up:  # imports and caches, once
        warm_up.call("double", [torch.arange(2)], {}, timeout_s=30)
    before = open_fds()
    with LearnerProcess(path, launcher=LocalLauncher()) as process:
        process.call("double", [torch.arange(2)], {}, timeout_s=30)
        assert open_fds() > before
    assert open_fds() == before
    assert "hello from the learner" in process.output_tail()  # what it printed stays readable


def test_a_load_interrupted_closes_the_process_before_the_interrupt_goes_on(learner_file, monkeypatch):
    """Whatever stops the judge while a file loads (here a KeyboardInterrupt), the learner's process
    is ended first: a slot or a process left behind would outlive the grading."""
    import judge.engine.process as process_module

    def interrupted(header):
        raise KeyboardInterrupt("interrupted while the file loads")

    monkeypatch.setattr(process_module.protocol, "first_message", interrupted)
    process = LearnerProcess(learner_file(ECHO), launcher=LocalLauncher(), wait=False)
    assert process.alive  # a positive control: it runs until the interrupt
    with pytest.raises(KeyboardInterrupt, match="interrupted while the file loads"):
        process.wait_ready()
    assert not process.alive and process._proc.poll() is not None


def test_while_a_learner_runs_the_judge_holds_one_end_of_each_pipe_it_shares(learner_file):
    """The lifeline's read end is the keeper's once the child has started (``handed_over``): a judge
    that kept it too would hold both ends of that pipe, one descriptor more per running job."""
    import os

    def pipe_ends() -> list[str]:
        ends = []
        for fd in os.listdir("/proc/self/fd"):
            try:
                target = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                continue
            if target.startswith("pipe:"):
                ends.append(target)
        return ends

    path = learner_file(ECHO)
    before = set(pipe_ends())
    with LearnerProcess(path, launcher=LocalLauncher()) as process:
        process.call("double", [torch.arange(2)], {}, timeout_s=30)
        new = [end for end in pipe_ends() if end not in before]
        assert new, "the judge talks to its learner through pipes"  # a positive control
        both_ends = sorted({end for end in new if new.count(end) > 1})
        assert not both_ends, f"the judge holds both ends of {both_ends}"


# --- which tensor arguments a call changed: exact, whatever the change, and as same_tensor decides ---

def _snapshot_says(before: torch.Tensor, change) -> bool:
    """Whether the child's check finds ``change`` (applied in place to ``before``) a modification."""
    from judge.learner.code import same_tensor
    from judge.sandbox.child import _Snapshot

    tensor = before.clone()
    snapshot, copy = _Snapshot(tensor, torch), tensor.clone()
    change(tensor)
    found = not snapshot.holds(tensor, torch)
    assert found == (not same_tensor(copy, tensor))  # the verdict is same_tensor's, however it is reached
    return found


def _set(index, value):
    def change(tensor):
        tensor.view(-1)[index] = value
    return change


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.bool, torch.bfloat16])
def test_a_change_of_one_element_is_caught_at_the_first_and_the_last(dtype):
    base = (torch.arange(24).reshape(2, 3, 4) % 2).to(dtype)
    for index in (0, -1, 7):
        value = torch.logical_not(base.view(-1)[index]).to(dtype) if dtype is torch.bool else base.view(-1)[index] + 1
        assert _snapshot_says(base, _set(index, value)), (dtype, index)
    assert not _snapshot_says(base, lambda t: None)
    assert not _snapshot_says(base, _set(3, base.view(-1)[3]))  # written, but with what it held


def test_what_same_tensor_calls_unchanged_stays_unchanged():
    nan = torch.tensor([float("nan"), -0.0, 1.0])
    assert not _snapshot_says(nan, _set(1, 0.0))  # -0.0 -> 0.0: other bytes, equal values
    assert not _snapshot_says(nan, lambda t: t.copy_(torch.tensor([float("nan"), 0.0, 1.0])))
    assert _snapshot_says(nan, _set(0, 2.0)) and _snapshot_says(nan, _set(2, float("nan")))


def test_same_tensor_takes_a_0_d_tensor_in_torch_and_in_the_browser_subset():
    """A 0-d argument (a temperature given as a scalar tensor) is compared, not refused: the browser's
    subset has no 0-d boolean index, so the comparison must not need one."""
    import judge.browser.torchlike as subset
    from judge.learner.code import same_tensor

    for lib in (torch, subset):
        for value in (0.5, float("nan"), -0.0):
            before = lib.tensor(value)
            assert same_tensor(before, lib.tensor(value))
            assert same_tensor(before, lib.tensor(0.0)) == (value == 0.0)
        assert not same_tensor(lib.tensor(float("nan")), lib.tensor(1.0))
        assert not same_tensor(lib.tensor([1.0, float("nan")]), lib.tensor([1.0, 2.0]))
        assert same_tensor(lib.tensor([1.0, float("nan")]), lib.tensor([1.0, float("nan")]))


@pytest.mark.parametrize("change", [
    lambda t: t.t_(),  # a square matrix transposed in place: same shape and bytes, other values
    lambda t: t.resize_(8),
    lambda t: t.resize_(5, 4),  # a larger storage
    lambda t: t.unsqueeze_(0),
    lambda t: t.set_(torch.arange(16.0).reshape(4, 4).t().contiguous()),
    lambda t: setattr(t, "data", t.data.double()),
])
def test_changes_of_layout_shape_storage_or_dtype_are_caught(change):
    assert _snapshot_says(torch.arange(16.0).reshape(4, 4), change)


def test_empty_and_non_contiguous_arguments_are_checked_too():
    assert not _snapshot_says(torch.ones(0, 3), lambda t: None)
    assert _snapshot_says(torch.ones(0, 3), lambda t: t.resize_(1, 3))
    from judge.sandbox.child import _Snapshot

    strided = torch.arange(12.0).reshape(3, 4)[:, ::2]  # not from the wire, but a snapshot must still be exact
    snapshot = _Snapshot(strided, torch)
    assert snapshot.holds(strided, torch)
    strided[2, 1] = -1
    assert not snapshot.holds(strided, torch)


def test_the_child_reports_a_change_at_the_first_or_last_element_of_any_argument(learner_file):
    path = learner_file("""
        def poke(probs, temperature, *, where):
            if where == "first":
                probs.view(-1)[0] += 1
            elif where == "last":
                temperature.view(-1)[-1] = 0.5
            return probs.sum()
    """)
    probs, temperature = torch.rand(64, 100, dtype=torch.float32), torch.ones(64, dtype=torch.float64)
    kept = probs.clone()
    with LearnerProcess(path) as process:
        for where, expected in (("first", ("probs",)), ("last", ("temperature",)), ("nowhere", ())):
            call = process.call("poke", [probs, temperature], {"where": where}, timeout_s=30)
            assert call.modified == expected, where
    assert torch.equal(probs, kept) and bool((temperature == 1).all())  # the judge's tensors: untouched


# --- a learner's exception: only its own frames are summarized, with the lines extract_tb gives ---

def test_learner_frames_are_those_extract_tb_gives_for_the_learners_file():
    import traceback

    from judge.learner.code import describe_exception, learner_frames, load_learner_module

    module = load_learner_module(
        "def outer(x):\n"
        "    return inner(\n"
        "        x,\n"
        "    )\n"
        "\n"
        "def inner(x):\n"
        "    values = [1, 2]\n"
        "    return values[\n"
        "        x\n"
        "    ]\n",
        "mine.py",
    )
    try:
        (lambda: module.outer(5))()  # a judge-side frame first, as in the child
    except IndexError as error:
        caught = error
    expected = [(f.filename, f.lineno, f.name, f.line) for f in traceback.extract_tb(caught.__traceback__)
                if f.filename == "mine.py"]
    assert [(f.filename, f.lineno, f.name, f.line) for f in learner_frames(caught, "mine.py")] == expected
    assert [line for _, line, _, _ in expected] == [2, 8]
    described = describe_exception(caught, "mine.py")
    assert described["line"] == 8 and described["type"] == "IndexError"
    assert 'File "mine.py", line 2, in outer' in described["traceback"] and __file__ not in described["traceback"]


# --- call_timing: the split of a call's wall between the learner's functions and the rest ---

def test_call_timing_adds_up_over_calls_and_clamps_what_the_child_says(learner_file):
    from judge.learner.interface import CallTiming

    path = learner_file("""
        import os
        import time
        from judge.learner import wire

        def nap(x):
            time.sleep(0.05)
            return x

        def boom():
            raise ValueError("no")

        def lie():  # says it took 1 000 000 s, before the child's own answer
            for fd in range(3, 1024):
                try:
                    wire.write_frame(os.fdopen(os.dup(fd), "wb"), {"ok": True, "value": 1, "elapsed_ms": 1e9,
                                                                  "modified": [], "tensors": []})
                except OSError:
                    pass
            return 1
    """)
    with LearnerProcess(path) as process:
        assert process.call_timing == CallTiming()
        process.call("nap", [torch.zeros(1000)], {}, timeout_s=30)
        first = process.call_timing
        assert first.calls == 1 and 0.045 <= first.learner_s <= first.wall_s
        assert first.bytes_sent > 4000 and first.bytes_received > 4000  # the tensor went out and came back
        with pytest.raises(LearnerRaised, match="^ValueError: no"):
            process.call("boom", [], {}, timeout_s=30)
        second = process.call_timing
        assert second.calls == 2 and second.wall_s > first.wall_s  # raised: timed until it raised
        assert 0 < second.learner_s - first.learner_s <= second.wall_s - first.wall_s
        assert process.call("lie", [], {}, timeout_s=30).elapsed_ms == 1e9  # what it said, as it said it
        third = process.call_timing
        assert third.calls == 3 and third.learner_s - second.learner_s == pytest.approx(third.wall_s - second.wall_s)
        assert third.transfer_s == pytest.approx(third.wall_s - third.learner_s) and third.transfer_s > 0


def test_call_timing_clamps_each_report_to_its_calls_wall():
    from judge.learner.interface import CallTiming

    timing = CallTiming().add(0.010, 25.0, 100, 200).add(0.010, -5.0, 1, 2).add(0.010, float("nan"), 0, 0)
    timing = timing.add(0.010, 4.0, 0, 0).add(-1.0, 3.0, 0, 0)  # a wall below zero counts as none
    assert timing.calls == 5 and timing.bytes_sent == 101 and timing.bytes_received == 202
    assert timing.wall_s == pytest.approx(0.040) and timing.learner_s == pytest.approx(0.010 + 0.004)


def test_the_in_process_learner_keeps_the_same_totals_with_nothing_sent():
    from judge.browser.learner import InProcessLearner

    learner = InProcessLearner(
        "import time\n\ndef f(x):\n    time.sleep(0.02)\n    return x\n\ndef g():\n    raise KeyError\n"
    )
    try:
        learner.call("f", [torch.ones(2)], {}, timeout_s=1)
        with pytest.raises(LearnerRaised, match="^KeyError"):
            learner.call("g", [], {}, timeout_s=1)
        timing = learner.call_timing
        assert timing.calls == 2 and timing.bytes_sent == timing.bytes_received == 0
        assert 0.02 <= timing.learner_s <= timing.wall_s
    finally:
        learner.close()


def test_tensor_arguments_are_named_by_the_signature_even_after_it_changes():
    from judge.learner.code import tensor_inputs

    def f(probs, k, temperature=1.0):
        return probs

    x, t = torch.ones(2), torch.ones(1)
    for _ in range(2):  # the second time from what was kept
        assert list(tensor_inputs(f, [x, 3, t], {"extra": t}, torch)) == ["probs", "temperature", "extra"]

    def g(logits, k, *rest):
        return logits

    f.__code__ = g.__code__  # the same callable, another signature: named anew
    assert list(tensor_inputs(f, [x, 3, t, t], {}, torch)) == ["logits", "rest", "argument 4"]
    assert list(tensor_inputs(min, [x], {}, torch)) == ["argument 1"]  # no signature to read


@pytest.mark.parametrize("narrow_pipe", [False, True])
def test_the_source_is_in_the_pipe_before_the_launch_and_whole_after_it(monkeypatch, narrow_pipe):
    """The load frame goes into the request pipe before the child starts (so it finds it at once);
    where the pipe cannot take it all then (a 64 kB pipe, a 300 kB source), the rest follows."""
    import os
    import threading

    import judge.engine.process
    from judge.learner import wire
    from judge.learner.interface import LearnerSource

    if narrow_pipe:
        monkeypatch.setattr(judge.engine.process, "widen_pipe", lambda fd: None)
    source = LearnerSource("def f():\n    return 1\n" + "# padding\n" * (30_000 if narrow_pipe else 1))
    seen = {}

    class Child:
        pid = 0

        def poll(self):
            return None

        def kill(self):
            pass

        def release(self):
            pass

    class Launcher:
        level = "local"
        startup_allowance_s = 0.0

        def launch(self, *, device, memory_limit_mb, fd_in, fd_out, output_fd, import_dir=None):
            inbox = os.dup(fd_in)
            os.set_blocking(inbox, False)
            seen["before"] = os.read(inbox, len(wire.MAGIC))  # already there: written before the launch
            os.set_blocking(inbox, True)
            stream = os.fdopen(inbox, "rb", buffering=0)
            prefixed = type("Prefixed", (), {"read": lambda _, n: seen.pop("before", b"") or stream.read(n)})()
            self.reader = threading.Thread(target=lambda: seen.update(frame=wire.read_frame(prefixed)[0]))
            self.reader.start()
            return Child()

        def close(self):
            pass

    launcher = Launcher()
    process = LearnerProcess(source, wait=False, launcher=launcher)
    launcher.reader.join(10)
    process.close()
    assert seen["frame"] == {"op": "load", "source": source.text, "filename": "solution.py", "tensors": []}
