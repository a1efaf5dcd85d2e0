"""The declared parameters of exercise.toml against the reference's and the starter's def lines."""

from __future__ import annotations

import pytest

from judge.exercises.declared import declared_param_problems, file_problems
from judge.exercises.exercise import FunctionSpec, load_all

SAMPLE = (FunctionSpec("sample", ("logits", "num_samples", "generator")),)


@pytest.mark.parametrize("exercise", load_all(), ids=lambda e: e.folder)
def test_every_exercise_declares_what_its_reference_and_starter_take(exercise):
    assert declared_param_problems(exercise) == []


def _problems(tmp_path, source: str, functions=SAMPLE) -> list[str]:
    path = tmp_path / "reference.py"
    path.write_text(source)
    return file_problems(path, functions)


def test_matching_signatures_have_no_problem(tmp_path):
    assert _problems(tmp_path, "def sample(logits, num_samples=1, generator=None):\n    pass\n") == []
    # Keyword-only parameters and optional extras are fine: the tests pass the declared ones by keyword.
    assert _problems(tmp_path, "def sample(logits, num_samples=1, *, generator=None, top_k=0, **kw):\n    pass\n") == []


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("def sample(logits, num_samples=1):\n    pass\n", "`sample` has no parameter `generator`"),
        ("def sample(logits, n=1, generator=None):\n    pass\n", "has no parameter `num_samples`"),
        ("def sample(logits, n=1, generator=None, **kw):\n    pass\n", "(only its **kwargs would take it)"),
        ("def sample(logits, /, num_samples=1, generator=None):\n    pass\n", "takes `logits` positional-only"),
        ("def sample(logits, num_samples, generator, seed):\n    pass\n", "requires `seed`, which exercise.toml"),
        ("def sample(logits, num_samples=1, *, generator, seed):\n    pass\n", "requires `seed`"),
        ("def sample(logits, generator=None, num_samples=1):\n    pass\n",
         "in the order (logits, generator, num_samples)"),
        ("sample = print\n", "has no `def sample(...)` at module level"),
        ("def sample(:\n", "cannot be read as Python"),
    ],
)
def test_each_mismatch_is_named(tmp_path, source, fragment):
    (problem,) = _problems(tmp_path, source)
    assert problem.startswith("reference.py") and fragment in problem


def test_a_missing_file_is_named(tmp_path):
    assert file_problems(tmp_path / "starter.py", SAMPLE) == ["starter.py is missing"]


def test_the_starter_is_held_to_the_same_declaration(tmp_path):
    import shutil

    from judge.exercises.exercise import load_exercise, resolve

    coin = resolve("1")
    pack = tmp_path / "exercises"
    shutil.copytree(coin.root, pack / coin.folder)
    shutil.copytree(coin.solutions_root, tmp_path / "solutions" / coin.folder)
    copy = load_exercise(pack / coin.folder)
    starter = copy.starter_path
    source = starter.read_text()
    starter.write_text(source.replace("def flip(p: torch.Tensor, n: int,", "def flip(p: torch.Tensor, count: int,"))
    missing, extra = declared_param_problems(copy)
    assert missing.startswith("starter.py: `flip` has no parameter `n`")
    assert extra.startswith("starter.py: `flip` requires `count`")
