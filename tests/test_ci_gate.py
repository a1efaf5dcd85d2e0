"""CI fails when a prerequisite it expects is missing: the gate on skips and xfails (tests/ci_gate.py)
and the install of PostgreSQL and Redis before the tests (scripts/ci_prerequisites.py, .ci/run)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from collections import Counter
from pathlib import Path

import ci_gate
import pytest

from judge.exercises.folders import PROJECT_ROOT

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent

# A session of four tests: one passes, one skips for a reason CI allows, one for a reason it does not,
# and one is a known limitation (an xfail whose node id the test adds to KNOWN_LIMITATIONS).
SESSION = """
import pytest

def test_passes():
    pass

@pytest.mark.skipif(True, reason="needs a CUDA device")
def test_on_cuda():
    pass

def test_on_chromium():
    pytest.skip("no chromium at /usr/bin/chromium")

@pytest.mark.xfail(strict=True, reason="a limitation")
def test_known():
    assert False
"""


@pytest.fixture
def session(pytester, monkeypatch):
    """``session(source, *args, ci=True)`` → the outcome of pytest on ``source``, the gate registered as
    tests/conftest.py registers it; ``test_known`` of any module is a known limitation."""
    # pytest-xdist's workers take the sys.path of xdist's import, without the folder of this file.
    pytester.makeconftest(f"import sys\nsys.path.insert(0, {str(TESTS)!r})\nimport ci_gate\n\n"
                          "def pytest_configure(config):\n    ci_gate.configure(config)\n")
    monkeypatch.setattr(ci_gate, "KNOWN_LIMITATIONS", {"test_session.py::test_known": "a limitation"})

    def run(source: str, *args: str, ci: bool = True) -> pytest.RunResult:
        if ci:
            monkeypatch.setenv("PROBJUDGE_CI", "1")
        else:
            monkeypatch.delenv("PROBJUDGE_CI", raising=False)
        pytester.makepyfile(test_session=source)
        return pytester.runpytest_inprocess("-p", "no:cacheprovider", *args)

    return run


def _gate_section(result: pytest.RunResult) -> list[str]:
    lines = result.outlines
    heads = [i for i, line in enumerate(lines) if "CI prerequisites (PROBJUDGE_CI=1)" in line]
    return lines[heads[0] + 1 :] if heads else []


def test_under_ci_a_skip_for_a_reason_not_allowed_fails_the_run_and_says_which_and_how_to_fix(session):
    result = session(SESSION)
    result.assert_outcomes(passed=1, skipped=2, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    gate = _gate_section(result)
    assert "  skipped test_session.py::test_on_chromium: no chromium at /usr/bin/chromium" in gate
    assert not [line for line in gate if "test_on_cuda" in line or "test_known" in line], gate  # allowed, known
    assert any("add the reason to ALLOWED_SKIPS" in line for line in gate), gate


def test_under_ci_allowed_skips_and_known_limitations_pass(session):
    result = session(SESSION.replace('pytest.skip("no chromium at /usr/bin/chromium")', "pass"))
    result.assert_outcomes(passed=2, skipped=1, xfailed=1)
    assert result.ret == pytest.ExitCode.OK and _gate_section(result) == []


def test_outside_ci_nothing_changes(session):
    result = session(SESSION + "\n@pytest.mark.xfail(reason='unknown')\ndef test_unknown():\n    assert False\n",
                     ci=False)
    result.assert_outcomes(passed=1, skipped=2, xfailed=2)
    assert result.ret == pytest.ExitCode.OK and _gate_section(result) == []


def test_under_ci_an_unknown_xfail_and_any_xpass_fail_the_run(session):
    result = session("""
import pytest

@pytest.mark.xfail(reason="flaky on Tuesdays")
def test_unknown():
    assert False

@pytest.mark.xfail(reason="fixed since")
def test_known():
    pass
""")
    result.assert_outcomes(xfailed=1, xpassed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    gate = _gate_section(result)
    assert "  xfailed test_session.py::test_unknown: flaky on Tuesdays" in gate
    assert "  xpassed test_session.py::test_known: fixed since" in gate  # known, but no longer failing


def test_under_ci_a_module_skipped_at_collection_fails_the_run(session):
    # Nothing else ran (pytest's status would be 5, "no tests collected", which `make test` accepts).
    result = session("import pytest\n\npytest.importorskip('no_such_module_here')\n\ndef test_never():\n    pass\n")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "  skipped test_session.py: could not import 'no_such_module_here': No module named "\
           "'no_such_module_here'" in _gate_section(result)


def test_under_ci_a_skip_on_an_xdist_worker_fails_the_run_once(session):
    """`make test` runs on pytest-xdist's workers: their reports reach the controller, which gates."""
    result = session(SESSION, "-n", "2")
    result.assert_outcomes(passed=1, skipped=2, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    found = [line for line in _gate_section(result) if line.startswith("  skipped ")]
    assert found == ["  skipped test_session.py::test_on_chromium: no chromium at /usr/bin/chromium"]


# --- PostgreSQL and Redis before the tests: scripts/ci_prerequisites.py, called by .ci/run ------------


def _bin(folder: Path, tools: dict[str, str]) -> Path:
    """A PATH folder: each tool a shell script (its text) or, for a text starting with "/", a link."""
    folder.mkdir(exist_ok=True)
    for name, text in tools.items():
        path = folder / name
        if text.startswith("/"):
            path.symlink_to(text)
        else:
            path.write_text("#!/bin/sh\n" + text)
            path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return folder


APT_LOG = 'echo "$*" >> "${0%/*}/apt.log"\n'
# An apt-get that cannot install (no network, a broken mirror), and one that installs both servers.
FAILING_APT = APT_LOG + 'case "$1" in update) exit 0;; *) echo "E: Unable to locate package" >&2; exit 100;; esac\n'
WORKING_APT = APT_LOG + (
    'for tool in redis-server pg_ctl initdb; do printf "#!/bin/sh\\n" > "${0%/*}/$tool"; '
    '/bin/chmod +x "${0%/*}/$tool"; done\n'
)
INSTALL = "install -y -q postgresql redis-server"


def _prerequisites(path: Path) -> subprocess.CompletedProcess[str]:
    # Only `path` on PATH: no redis-server is found there, whatever this machine has installed.
    return subprocess.run([sys.executable, str(PROJECT_ROOT / "scripts" / "ci_prerequisites.py")],
                          env={"PATH": str(path)}, capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(os.geteuid() != 0, reason="installs with apt-get as root, as CI does")
def test_prerequisites_fail_saying_what_is_missing_when_apt_get_cannot_install(tmp_path):
    bin_ = _bin(tmp_path / "bin", {"apt-get": FAILING_APT})
    done = _prerequisites(bin_)
    assert done.returncode == 1, done.stderr
    assert (bin_ / "apt.log").read_text().splitlines() == [INSTALL, "update -q", INSTALL]  # a stale list retried
    assert "error: CI needs PostgreSQL and Redis" in done.stderr
    assert "  - Redis is not installed: install Debian's `redis-server` package" in done.stderr
    assert "Fix: as root on Debian, `apt-get install postgresql redis-server`" in done.stderr


def test_prerequisites_fail_without_apt_get(tmp_path):
    done = _prerequisites(_bin(tmp_path / "bin", {}))
    assert done.returncode == 1, done.stderr
    reason = "  - not root: apt-get cannot install packages" if os.geteuid() else "  - no apt-get on PATH"
    assert reason in done.stderr, done.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="installs with apt-get as root, as CI does")
def test_prerequisites_pass_once_apt_get_installed_the_servers(tmp_path):
    bin_ = _bin(tmp_path / "bin", {"apt-get": WORKING_APT})
    done = _prerequisites(bin_)
    assert done.returncode == 0, done.stderr
    assert (bin_ / "apt.log").read_text().splitlines() == [INSTALL]
    assert _prerequisites(bin_).returncode == 0 and (bin_ / "apt.log").read_text().splitlines() == [INSTALL]


@pytest.mark.skipif(os.geteuid() != 0, reason="installs with apt-get as root, as CI does")
def test_ci_run_stops_before_the_tests_when_the_servers_cannot_be_installed(tmp_path):
    """The run that used to go on, green, on SQLite alone: `make` must never start."""
    tools = {name: path for name in ("dirname", "id", "mktemp", "rm", "cat") if (path := shutil.which(name))}
    make = 'echo "make $*" >> "${0%/*}/make.log"\n'
    tools |= {"python3": sys.executable, "apt-get": FAILING_APT, "make": make}
    bin_ = _bin(tmp_path / "bin", tools)
    done = subprocess.run(["/bin/bash", str(PROJECT_ROOT / ".ci" / "run")], env={"PATH": str(bin_)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0, done.stdout + done.stderr
    assert not (bin_ / "make.log").exists(), "the tests ran without PostgreSQL and Redis"
    assert "error: CI needs PostgreSQL and Redis" in done.stderr


def test_every_test_module_has_a_name_of_its_own():
    """pytest imports test modules by their base name (tests/ has no packages): two files named
    alike in two folders stop the whole run at collection, which only the full suite shows."""
    root = Path(__file__).resolve().parent
    names = Counter(path.name for path in root.rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []
