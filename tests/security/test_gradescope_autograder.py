"""The Gradescope autograder cannot be forged: ``python -m judge.gradescope`` run as Gradescope
runs it (a command, on a folder standing in for ``/autograder``) against submissions that attack
the grade itself. A daemon that leaves its session, or kills its keeper, must not outlive the judge
and rewrite ``results.json``; a submission must not read the reference solution or the hidden
tests by any path it can guess; ``local`` as root runs only when forced, and says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest
from attack_support import TEMPLATE, kill_quietly, marker, needs_strict, processes_named, renamer

from judge import gradescope
from judge.exercises.folders import PROJECT_ROOT

pytestmark = pytest.mark.strict_sandbox

LOCAL = ["--sandbox", "local", "--allow-unsafe-local"]
FORGED = 1000.0


def autograde(root, *options: str, exercise: str = "39") -> subprocess.CompletedProcess:
    """The autograder as ``run_autograder`` starts it; ``root`` stands in for ``/autograder``."""
    return subprocess.run([sys.executable, "-m", "judge.gradescope", "--exercise", exercise, "--root", str(root),
                           "--seed", "1", *options], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)


def submit(root, source: str) -> None:
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "039-sampling.py").write_text(source, encoding="utf-8")


def daemon_attack(target, name: str, kill_keeper: bool) -> str:
    """A daemon (setsid, double fork) that waits for the judge to write its 0, then writes full marks
    again and again; with ``kill_keeper``, the worker also kills its keeper and goes on sleeping."""
    body = f"""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            {renamer(name)}
            for _ in range(40):
                time.sleep(0.5)
                try:
                    forged = json.loads(open({str(target)!r}).read())
                    forged.update(score={FORGED}, output="forged")
                    open({str(target)!r}, "w").write(json.dumps(forged))
                except (OSError, ValueError):
                    pass
        os._exit(0)
    if {kill_keeper}:
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(5)
    raise ValueError("nothing to see")
    """
    return TEMPLATE.format(body=textwrap.indent(textwrap.dedent(body).strip(), "    "))


LEVELS = [pytest.param(LOCAL, id="local-forced"), pytest.param([], id="strict-default", marks=needs_strict)]


@pytest.mark.parametrize("kill_keeper", [False, True], ids=["daemon", "daemon-and-dead-keeper"])
@pytest.mark.parametrize("options", LEVELS)
def test_no_process_of_the_submission_outlives_the_judge_to_rewrite_the_results(tmp_path, options, kill_keeper):
    name = marker()
    target = tmp_path / "results" / "results.json"
    submit(tmp_path, daemon_attack(target, name, kill_keeper))
    try:
        done = autograde(tmp_path, *options)
        assert done.returncode == 0, done.stderr
        assert processes_named(name) == [], "a process of the submission outlived the judge"
        written = target.read_bytes()
        time.sleep(4)  # the daemon would have written by now
        assert target.read_bytes() == written
        results = json.loads(written)
        assert results["score"] < results["extra_data"]["max_score"] and results["output"] != "forged"
        assert (target.stat().st_mode & 0o777) == 0o644 and not target.parent.stat().st_mode & 0o022
    finally:
        for pid in processes_named(name):
            kill_quietly(pid)


SNOOP = '''
import os, sys

CHECKOUT = {checkout!r}
WANTED = ("solutions/039-sampling/reference.py", "exercises/039-sampling/tests/hidden/hidden.py",
          "039-sampling/reference.py", "tests/hidden/hidden.py", "reference.py", "hidden.py")


def _roots():
    roots = [".", "..", "../..", CHECKOUT, "/autograder/source/probjudge", "/autograder/source", "/autograder",
             "/opt/probjudge/source", os.path.expanduser("~")]
    try:
        import judge
        roots += [os.path.dirname(judge.__file__), os.path.dirname(os.path.dirname(judge.__file__))]
    except Exception:
        pass
    roots += [p for p in sys.path] + [os.path.dirname(p) for p in sys.path if p]
    pids = ["1", "self", str(os.getppid())]
    try:
        status = open(f"/proc/{{os.getppid()}}/status").read()
        pids.append(status.split("PPid:")[1].split()[0])
    except Exception:
        pass
    for pid in pids:
        for link in ("cwd", "root"):
            for inner in ("", CHECKOUT, "/autograder/source/probjudge"):
                roots.append(f"/proc/{{pid}}/{{link}}{{inner}}")
    roots += [value for value in os.environ.values() if value.startswith("/")]
    return roots


def _stolen():
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None) or ""
        if "solutions" in path or "hidden" in path:
            yield path
    for root in _roots():
        for wanted in WANTED:
            yield os.path.join(root, wanted)


def _reference():
    for path in _stolen():
        try:
            with open(path, encoding="utf-8") as file:
                source = file.read()
        except Exception:
            continue
        if "def sample(" in source:
            namespace = {{"__name__": "stolen"}}
            exec(compile(source, "stolen", "exec"), namespace)
            return namespace
    raise RuntimeError("found nothing")


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    return _reference()["sampling_probs"](logits, temperature, top_k, top_p, min_p)


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    return _reference()["sample"](logits, num_samples, temperature, top_k, top_p, min_p, generator)
'''


@needs_strict
def test_the_submission_reads_neither_the_reference_nor_the_hidden_tests(tmp_path):
    submit(tmp_path, SNOOP.format(checkout=str(PROJECT_ROOT)))
    done = autograde(tmp_path)  # the default level
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == 0, results["output"]  # judged as the wrong solution it is
    assert all(test["status"] == "failed" for test in results["tests"])
    assert all("found nothing" in test["output"] for test in results["tests"]), results["tests"][0]["output"]


def test_the_snooping_submission_is_ac_where_nothing_is_isolated(tmp_path):
    """The attack above is real: at the forced ``local`` level it finds the reference."""
    submit(tmp_path, SNOOP.format(checkout=str(PROJECT_ROOT)))
    done = autograde(tmp_path, *LOCAL)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == results["extra_data"]["max_score"] > 0


def test_strict_is_the_default_and_local_as_root_is_refused_unless_forced(tmp_path, capsys):
    assert gradescope.build_parser().parse_args(["--exercise", "1"]).sandbox == "strict"
    assert gradescope.sandbox_refusal("local", allow_unsafe_local=False, euid=0)
    assert gradescope.sandbox_refusal("local", allow_unsafe_local=True, euid=0) is None
    assert gradescope.sandbox_refusal("local", allow_unsafe_local=False, euid=1000) is None  # a dry run
    assert gradescope.sandbox_refusal("strict", allow_unsafe_local=False, euid=0) is None
    if os.geteuid() == 0:
        code = gradescope.main(["--exercise", "1", "--root", str(tmp_path), "--sandbox", "local"])
        assert code == gradescope.SETUP_ERROR and "--allow-unsafe-local" in capsys.readouterr().err
        assert not (tmp_path / "results").exists()


def test_a_forced_local_run_says_loudly_that_it_was_not_isolated(tmp_path):
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "001-weighted-coin.py").write_text("def flip(p, generator=None):\n    return p\n")
    done = autograde(tmp_path, *LOCAL, exercise="1")
    assert done.returncode == 0 and "WARNING" in done.stderr and "not isolated" in done.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert "This run was not isolated (--sandbox local)" in results["output"]


@needs_strict
def test_the_strict_sandbox_refuses_a_checkout_its_learners_could_read(tmp_path):
    from judge.exercises.exercise import resolve

    exercise = resolve("39")
    assert gradescope.exposed_to_sandbox(exercise, [sys.prefix]) == []
    exposed = gradescope.exposed_to_sandbox(exercise, [str(PROJECT_ROOT)])
    assert str(exercise.solutions_root.resolve()) in exposed and any(p.endswith("tests") for p in exposed)


