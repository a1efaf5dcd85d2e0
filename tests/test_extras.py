"""Install what you use: a learner's ``pip install probjudge`` is the CLI, the rest are extras.

pyproject.toml's base dependencies hold no web stack, Celery, psycopg nor transformers, and each
extra lists what ``judge.extras.PROVIDERS`` says it installs; a learner's commands run with those
packages made unimportable; and each command that needs an extra, run without it, prints the one
line that names the extra and exits 2, with no traceback.

"Unimportable" is a ``sitecustomize`` on ``PYTHONPATH`` that sets ``sys.modules[name] = None``
before anything runs: ``import name`` then raises ``ModuleNotFoundError`` and
``importlib.util.find_spec`` answers None, as on a machine without the package.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib

import pytest

from judge import extras
from judge.exercises.exercise import load_all
from judge.exercises.folders import PROJECT_ROOT

PYPROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
WEB_STACK = ("flask", "sqlalchemy", "celery", "psycopg", "transformers")


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalised (PEP 503): ``celery[redis]>=5.5`` -> ``celery``."""
    match = re.match(r"[A-Za-z0-9._-]+", requirement.strip())
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def _extra(name: str) -> list[str]:
    return PYPROJECT["project"]["optional-dependencies"][name]


def _provided(extra: str) -> set[str]:
    return {distribution for distribution, owner in extras.PROVIDERS.values() if owner == extra}


# --- pyproject.toml against the table ---------------------------------------------------------------


def test_a_learners_install_holds_no_web_stack_nor_model_library():
    base = {_name(requirement) for requirement in PYPROJECT["project"]["dependencies"]}
    assert not base & set(WEB_STACK), base
    assert not base & {distribution for distribution, _ in extras.PROVIDERS.values()}, base


@pytest.mark.parametrize("extra", ["site", "scale", "models"])
def test_each_extra_lists_exactly_what_the_table_says_it_installs(extra):
    """Equality, not inclusion: a distribution the table does not know is one no front door checks."""
    listed = {_name(requirement) for requirement in _extra(extra) if _name(requirement) != "probjudge"}
    assert listed == _provided(extra)


def test_the_test_extra_lists_the_maintainer_tools_the_table_names():
    assert _provided("test") <= {_name(requirement) for requirement in _extra("test")}


def test_scale_installs_the_site_and_all_installs_every_extra_a_deployment_runs():
    assert "probjudge[site]" in _extra("scale")
    (everything,) = _extra("all")
    assert set(re.fullmatch(r"probjudge\[(.*)\]", everything).group(1).split(",")) == {"site", "scale", "models"}
    assert set(extras.EXTRAS) == set(PYPROJECT["project"]["optional-dependencies"]) - {"all"}


def test_make_installs_every_extra():
    """make run and make test need the site, Celery, PostgreSQL's driver and the model."""
    assert '-e ".[all,test]"' in (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")


def test_an_import_error_names_its_extra_by_the_top_level_package():
    assert extras.missing_extra(ModuleNotFoundError("x", name="flask.json")).extra == "site"
    assert extras.missing_extra(ModuleNotFoundError("x", name="kombu.exceptions")).extra == "scale"
    assert extras.missing_extra(ModuleNotFoundError("x", name="numpy")) is None


def test_every_exercise_whose_tests_load_a_model_declares_the_models_extra():
    for exercise in load_all():
        sources = [p.read_text(encoding="utf-8") for p in (exercise.root / "tests").rglob("*.py")]
        loads = any(
            re.search(r"from judge\.exercises import models|judge\.exercises\.models import", s) for s in sources
        )
        assert loads == ("models" in exercise.extras), exercise.folder


# --- running without the extras ---------------------------------------------------------------------


@pytest.fixture
def without(tmp_path):
    """``without(*modules)``: the environment of a process in which ``modules`` cannot be imported."""

    def environment(*modules: str) -> dict[str, str]:
        folder = tmp_path / "blocked"
        folder.mkdir(exist_ok=True)
        (folder / "sitecustomize.py").write_text(
            "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules), encoding="utf-8"
        )
        env = {**os.environ, "PYTHONPATH": str(folder), "PROBJUDGE_LANG": "en"}
        env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'site.db'}"
        env.pop("PROBJUDGE_BROKER_URL", None)
        for module in modules:  # the blocker works, or every test below proves nothing
            probe = subprocess.run([sys.executable, "-c", f"import {module}"], env=env, capture_output=True)
            assert probe.returncode != 0, module
        return env

    return environment


def _run(args: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=timeout
    )


JUDGE = [sys.executable, "practice/judge.py"]


def test_a_learners_commands_run_without_the_web_stack_and_the_model(without):
    env = without(*WEB_STACK)
    listed = _run(JUDGE + ["list"], env)
    assert listed.returncode == 0 and "weighted-coin" in listed.stdout, listed.stderr
    shown = _run(JUDGE + ["show", "1"], env)
    assert shown.returncode == 0 and "A weighted coin" in shown.stdout and "What you build" in shown.stdout, (
        shown.stderr
    )
    judged = _run(JUDGE + ["test", "1", "solutions/001-weighted-coin/reference.py", "--json"], env, timeout=300)
    assert judged.returncode == 0 and '"verdict": "AC"' in judged.stdout, judged.stderr[-2000:]


def _says_install(result: subprocess.CompletedProcess[str], extra: str) -> str:
    """The one line on stderr that names ``extra``; asserts exit 2 and no traceback."""
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"pip install 'probjudge[{extra}]'" in lines[0], result.stderr
    return lines[0]


@pytest.mark.parametrize("command", [["serve"], ["init-db"], ["create-user", "ada", "--password", "x" * 12]])
def test_the_site_without_flask_names_the_site_extra(without, command):
    line = _says_install(_run([sys.executable, "-m", "web", *command], without("flask")), "site")
    assert line.startswith("error: the web site cannot run without flask")


def test_a_partial_site_install_is_named_before_any_command_runs(without):
    """waitress is imported only when ``serve`` starts the server: init-db would work without it,
    and the site would not start later. The check is of the whole extra, up front."""
    line = _says_install(_run([sys.executable, "-m", "web", "init-db"], without("waitress")), "site")
    assert line.startswith("error: the web site cannot run without waitress")


def test_the_site_command_says_it_in_chinese_too(without):
    env = {**without("sqlalchemy"), "PROBJUDGE_LANG": "zh"}
    line = _says_install(_run([sys.executable, "-m", "web", "init-db"], env), "site")
    assert line.startswith("错误：网站需要 sqlalchemy")


def test_a_postgresql_site_without_psycopg_names_the_scale_extra(without):
    env = {**without("psycopg"), "DATABASE_URL": "postgresql+psycopg://probjudge@127.0.0.1:1/probjudge"}
    line = _says_install(_run([sys.executable, "-m", "web", "init-db"], env), "scale")
    assert "without psycopg," in line


@pytest.mark.parametrize("command", ["grade", "beat"])
def test_a_broker_without_celery_names_the_scale_extra(without, command):
    env = {**without("celery"), "PROBJUDGE_BROKER_URL": "redis://127.0.0.1:1/0"}
    line = _says_install(_run([sys.executable, "-m", "web", command], env), "scale")
    assert "without celery," in line


def test_the_wsgi_module_without_flask_fails_on_the_line_that_names_the_extra(without):
    """A server (gunicorn) prints the import's traceback: its last line is the hint."""
    result = _run([sys.executable, "-c", "import web.wsgi"], without("flask"))
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1] == "judge.extras.MissingExtra: " + extras.hint(
        "site", "en", module="flask"
    )


REFERENCE_45 = "solutions/045-real-model-distributions/reference.py"


@pytest.mark.parametrize(
    "lang, start",
    [
        ("en", "error: this exercise's hidden tests cannot run without transformers"),
        ("zh", "错误：这道练习的隐藏测试需要 transformers"),
    ],
)
def test_exercise_45_without_transformers_names_the_models_extra(without, lang, start):
    result = _run(JUDGE + ["test", "45", REFERENCE_45, "--lang", lang], without("transformers"))
    assert _says_install(result, "models").startswith(start)


def test_check_without_transformers_stops_before_judging_anything(without):
    result = _run(JUDGE + ["check", "1", "45"], without("transformers"))
    _says_install(result, "models")
    assert "001 weighted-coin" not in result.stdout  # said up front, not after exercise 1's minutes


def test_the_autograder_of_exercise_45_without_transformers_names_the_models_extra(without, tmp_path):
    args = ["-m", "judge.gradescope", "--exercise", "45", "--root", str(tmp_path), "--sandbox", "local"]
    result = _run([sys.executable, *args, "--allow-unsafe-local"], without("transformers"))
    _says_install(result, "models")
    assert not (tmp_path / "results").exists()  # a setup error of the staff's image: no grade at all


def test_mutation_testing_without_cosmic_ray_names_the_test_extra(without):
    line = _says_install(_run(JUDGE + ["mutation", "1"], without("cosmic_ray")), "test")
    assert line.startswith("error: mutation testing cannot run without cosmic_ray")


def test_the_web_front_door_lets_an_unrelated_import_error_through(monkeypatch):
    """Only a module of an extra becomes the hint: any other missing module is a bug, shown as one."""
    from web import __main__ as front_door

    def broken(argv):
        raise ModuleNotFoundError("No module named 'numpyy'", name="numpyy")

    monkeypatch.setattr(front_door, "_run", broken)
    with pytest.raises(ModuleNotFoundError, match="numpyy"):
        front_door.main(["init-db"])


def test_the_blocker_is_what_a_missing_package_looks_like(without):
    """find_spec answers None, as for a package that is not installed (the front doors ask it)."""
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('flask') is not None)"
    assert _run([sys.executable, "-c", probe], without("flask")).returncode == 0
