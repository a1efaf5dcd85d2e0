"""``practice/judge.py new NUMBER SLUG``: a small working exercise to start from.

The scaffold writes an exercise that passes ``check`` as it stands: a function ``draw(probs, n,
generator=None)`` that draws ``n`` outcomes from one categorical distribution, with a public and
a hidden suite built on the check library, the contract list of its statement
(``tests/hidden/contract.toml``), a reference, an explanation and one wrong solution
(it ignores ``generator``) whose ``Diagnosis:`` the hidden suite gives. The author replaces the
function, the tests and the texts (every place marked ``TODO``, in both languages), keeping the
layout. Exercise 1 (``exercises/001-weighted-coin/``) is the small model and exercise 39 the
large one (docs/authoring.md, "Start from the scaffold").

It never overwrites: a number or slug already used in any pack, an existing folder, a bad slug
or a number outside 1..999 is an :class:`ExerciseError` before anything is written.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from judge.exercises.exercise import exercise_dirs, load_all
from judge.exercises.folders import ExerciseError

SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NUMBER = 999


def _toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's, and non-ASCII text stays readable)."""
    return json.dumps(text, ensure_ascii=False)


def check_number(number: int | str) -> int:
    """``number`` as an int in 1..999, else :class:`ExerciseError`."""
    text = str(number).strip()
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_NUMBER:
        raise ExerciseError(f"the number must be a whole number from 1 to {MAX_NUMBER}; got {str(number)!r}")
    return int(text)


def check_slug(slug: str) -> str:
    """``slug`` if it is lowercase letters, digits and single hyphens inside, else :class:`ExerciseError`."""
    if not SLUG.fullmatch(slug):
        raise ExerciseError(
            f"bad slug {slug!r}: use lowercase letters a-z, digits and hyphens between them (e.g. beam-search)"
        )
    return slug


def _refuse_taken(number: int, slug: str, pack: Path) -> None:
    """A number or slug used by an exercise of any pack (the configured ones and ``pack``), or by a
    folder of ``pack`` or of its ``solutions/``, even one without an ``exercise.toml`` yet."""
    packs = exercise_dirs()
    if pack not in packs:
        packs = [*packs, pack]
    for exercise in load_all(packs):
        if exercise.number == number:
            raise ExerciseError(f"number {number} is taken by {exercise.root}; choose another")
        if exercise.slug == slug:
            raise ExerciseError(f"slug {slug!r} is taken by {exercise.root}; choose another")
    for folder in (pack, pack.parent / "solutions"):
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            head, _, tail = path.name.partition("-")
            if head.isdigit() and int(head) == number:
                raise ExerciseError(f"number {number} is taken by the folder {path}; choose another")
            if head.isdigit() and tail == slug:
                raise ExerciseError(f"slug {slug!r} is taken by the folder {path}; choose another")


def new_exercise(
    number: int | str,
    slug: str,
    *,
    title_en: str | None = None,
    title_zh: str | None = None,
    into: Path | str | None = None,
) -> list[Path]:
    """Write exercise ``NUMBER-SLUG`` into the pack ``into`` (default: the first configured pack,
    the repository's ``exercises/`` unless ``PROBJUDGE_EXERCISES`` says otherwise) and its
    solutions into the ``solutions/`` folder beside that pack. Returns the files written.

    Raises :class:`ExerciseError` (and writes nothing) for a bad number or slug, a number or slug
    already used, a pack that does not exist, or a target folder that exists.
    """
    number = check_number(number)
    slug = check_slug(slug)
    pack = Path(os.path.abspath(Path(into).expanduser())) if into is not None else exercise_dirs()[0]
    if not pack.is_dir():
        raise ExerciseError(f"{pack}: no such folder of exercises (create it first, or name another with --into)")
    folder = f"{number:03d}-{slug}"
    root, solutions = pack / folder, pack.parent / "solutions" / folder
    for target in (root, solutions):
        if target.exists():
            raise ExerciseError(f"{target} exists; nothing was written (the scaffold never overwrites)")
    _refuse_taken(number, slug, pack)
    title_en = title_en or slug.replace("-", " ").capitalize()
    title_zh = title_zh or f"{title_en}（TODO：中文标题）"
    for text, which in ((title_en, "--title-en"), (title_zh, "--title-zh")):
        if not text.strip() or "\n" in text or '"""' in text or "\\" in text:
            raise ExerciseError(f"{which} must be one line of text, without backslashes or triple quotes")
    values = {
        "number": str(number),
        "slug": slug,
        "folder": folder,
        "title_en": title_en,
        "title_zh": title_zh,
        "title_en_toml": _toml_string(title_en),
        "title_zh_toml": _toml_string(title_zh),
    }
    files = {root / name: text for name, text in EXERCISE_FILES.items()}
    files.update({solutions / name: text for name, text in SOLUTION_FILES.items()})
    written: list[Path] = []
    try:
        for path, template in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "x", encoding="utf-8") as handle:  # "x": never replaces a file
                handle.write(_fill(template, values))
            written.append(path)
    except OSError as exc:
        for target in (root, solutions):  # both were absent before: remove what this call made
            shutil.rmtree(target, ignore_errors=True)
        raise ExerciseError(f"could not write {folder}: {exc}") from None
    return written


def _fill(template: str, values: dict[str, str]) -> str:
    """``template`` with each ``<<name>>`` replaced (braces stay as they are: the files are Python)."""
    return re.sub(r"<<(\w+)>>", lambda match: values[match.group(1)], template)


# --------------------------------------------------------------------------------------------- templates

EXERCISE_TOML = """\
number = <<number>>
slug = "<<slug>>"
difficulty = "easy"            # easy, medium or hard (TODO)
tags = ["sampling"]            # TODO
chapter = "Probability and sampling"
# section = "sampling-algorithms"  # TODO: the chapter's section, an id in the pack's chapters.toml
#                                      (a pack without one: the repository's exercises/chapters.toml)
# Add "browser" with a [browser] table and tests/public/tiny.py to offer "Run" (see exercise 1).
runs_in = ["local", "server"]

[title]
en = <<title_en_toml>>
zh = <<title_zh_toml>>

# Each function the learner writes, with the parameter names the tests pass by keyword.
[functions.draw]
params = ["probs", "n", "generator"]

[judging]
time_limit_s = 5.0             # the learner's CPU time per test case
memory_limit_mb = 2048
devices = ["cpu", "cuda"]
false_failure_budget = 1e-6    # P(a correct submission fails), public and hidden together
"""

STATEMENT_EN = """\
# <<number>>. <<title_en>>

TODO: replace this statement (and statement.zh.md) with your exercise's. The scaffold's example
is a sampler of one categorical distribution; keep the sections.

## What you build

`draw` takes the probabilities of $V$ outcomes and draws `n` of them independently.

## Contract

```python
def draw(probs: torch.Tensor, n: int, generator: torch.Generator | None = None) -> torch.Tensor
```

- `probs`: a float32 or float64 tensor `[V]`, values `>= 0` that sum to 1.
- `n`: the number of draws, at least 1.
- `generator`: the only source of randomness; torch's default generator when `None`. Each call
  continues its stream (two calls in a row give different draws), and with a generator given,
  torch's default generator is left untouched.
- Returns an `int64` tensor `[n]` of outcome indices in `[0, V)`, on the device of `probs`.
- Raises `ValueError` for `probs` not 1-D, a negative or NaN probability, or `n < 1`.

TODO: what is left open on purpose.

## Worked example

TODO: a small example with numbers computed by code.

## How you are judged

TODO: what the public and the hidden tests check.
"""

STATEMENT_ZH = """\
# <<number>>. <<title_zh>>

TODO：用你的题目替换这份题面（以及 statement.en.md）。脚手架里的例子是从一个类别分布中抽样；
请保留各个小节。

## 要做什么

`draw` 接收 $V$ 个结果的概率，独立地抽取 `n` 次。

## 约定

```python
def draw(probs: torch.Tensor, n: int, generator: torch.Generator | None = None) -> torch.Tensor
```

- `probs`：形状为 `[V]` 的 float32 或 float64 张量，元素 `>= 0`，总和为 1。
- `n`：抽样次数，至少为 1。
- `generator`：唯一的随机数来源；为 `None` 时使用 torch 的默认生成器。每次调用都接着它的随机数流
  往下抽（连续调用两次给出不同的结果）；传入生成器时，不得动用 torch 的默认生成器。
- 返回值：与 `probs` 同设备、形状为 `[n]` 的 `int64` 张量，元素是 `[0, V)` 中的结果编号。
- `probs` 不是一维、含负数或 NaN，或 `n < 1` 时抛出 `ValueError`。

TODO：说明哪些地方有意不作规定。

## 算例

TODO：给出一个用代码算出数值的小例子。

## 如何评测

TODO：说明公开测试和隐藏测试各检查什么。
"""

STARTER = '''\
"""Exercise <<number>>: <<title_en>>."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show <<number>>`.
# [cli en] Judge your work with `python practice/judge.py test <<number>>`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show <<number>> --lang zh`。
# [cli zh] 用 `python practice/judge.py test <<number>> --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def draw(probs: torch.Tensor, n: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """Draw `n` independent outcomes from `probs` (TODO: your function's contract).

    Args:
        probs: float tensor [V], values >= 0 summing to 1.
        n: the number of draws, at least 1.
        generator: the only source of randomness; torch's default generator when None.

    Returns:
        int64 tensor [n] of outcome indices, on the device of `probs`.

    Raises:
        ValueError: probs not 1-D, a negative or NaN probability, or n < 1.
    """
    # [en] TODO: a hint in English (or delete these two lines).
    # [zh] TODO：中文提示（或者删掉这两行）。
    raise NotImplementedError("draw: write it here")
'''

PUBLIC = '''\
"""Public tests of exercise <<number>>: small examples a learner can read (TODO: yours)."""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_distribution, expect_tokens_in_range
from judge.checks.exact import expect_tensor
from judge.checks.refusals import expect_raises

BUDGET = BudgetDeclaration(fit=1)  # the statistical checks this suite runs

PROBS = [0.2, 0.3, 0.5]
OUTCOME = ("outcome", "结果")  # the noun messages use for one outcome


def test_shape(sub, ctx):
    """draw returns n outcome indices, int64

    zh: draw 返回 n 个 int64 的结果编号
    """
    draws = sub.draw(torch.tensor(PROBS), 7, generator=ctx.generator())
    draws = expect_tensor(draws, name="draw", shape=(7,), dtype=torch.int64, device=ctx.device)
    expect_tokens_in_range(draws, len(PROBS), what="draw", outcome=OUTCOME)


def test_distribution(sub, ctx):
    """2 000 draws follow [0.2, 0.3, 0.5]

    zh: 2 000 次抽样服从 [0.2, 0.3, 0.5]
    """
    draws = sub.draw(torch.tensor(PROBS), 2_000, generator=ctx.generator())
    draws = expect_tensor(draws, name="draw", shape=(2_000,), dtype=torch.int64, device=ctx.device)
    expect_tokens_in_range(draws, len(PROBS), what="draw", outcome=OUTCOME)
    expect_distribution(ctx, draws, torch.tensor(PROBS, dtype=torch.float64), label="draw([0.2, 0.3, 0.5], 2000)",
                        outcome=OUTCOME)


def test_n_zero(sub, ctx):
    """n = 0 raises ValueError

    zh: n = 0 时抛出 ValueError
    """
    with expect_raises(ValueError, "draw(probs, 0)"):
        sub.draw(torch.tensor(PROBS), 0, generator=ctx.generator())
'''

HIDDEN = '''\
"""Hidden tests of exercise <<number>> (TODO: yours). They never leave the judge's process."""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_distribution, expect_tokens_in_range
from judge.checks.exact import expect_tensor
from judge.checks.generator_contract import expect_generator_contract, generator_contract_budget
from judge.checks.refusals import BadInput, expect_bad_inputs_refused

from ..public.public import OUTCOME  # hidden modules may import public ones, never the reverse

PROBS = [0.1, 0.15, 0.25, 0.5]
DRAWS = 20_000

# One fit, and what the whole generator contract spends (judge/checks/generator_contract.py).
BUDGET = BudgetDeclaration(fit=1) + generator_contract_budget(torch.tensor(PROBS, dtype=torch.float64))


def _draws(source, ctx, n: int, generator) -> torch.Tensor:
    value = source.draw(torch.tensor(PROBS), n, generator=generator)
    draws = expect_tensor(value, name="draw", shape=(n,), dtype=torch.int64, device=ctx.device)
    expect_tokens_in_range(draws, len(PROBS), what="draw", outcome=OUTCOME)
    return draws


def test_distribution(sub, ctx):
    """draw: 20 000 draws follow the target distribution

    zh: draw：20 000 次抽样服从目标分布
    """
    draws = _draws(sub, ctx, DRAWS, ctx.generator())
    expect_distribution(ctx, draws, torch.tensor(PROBS, dtype=torch.float64), label="draw, 20 000 draws",
                        outcome=OUTCOME)


def test_seeds(sub, ctx):
    """draw: the generator decides the draws and advances; without one, torch.manual_seed does

    zh: draw：由 generator 决定抽样结果且每次调用都向前推进；不传 generator 时由 torch.manual_seed 决定
    """
    expect_generator_contract(sub, ctx, lambda source, generator: _draws(source, ctx, 100, generator),
                              torch.tensor(PROBS, dtype=torch.float64), label="draw")


def test_bad_inputs(sub, ctx):
    """draw: bad inputs raise ValueError

    zh: draw：非法输入抛出 ValueError
    """
    expect_bad_inputs_refused(sub.draw, [
        BadInput("probs = [-0.5, 1.5]", {"probs": torch.tensor([-0.5, 1.5]), "n": 3}, public="a negative probability"),
        BadInput("probs = [nan, 1.0]", {"probs": torch.tensor([float("nan"), 1.0]), "n": 3},
                 public="a NaN probability"),
        BadInput("probs of shape [1, 2]", {"probs": torch.tensor([[0.5, 0.5]]), "n": 3}, public="probs not 1-D"),
        BadInput("n = 0", {"probs": torch.tensor(PROBS), "n": 0}),
    ], extra=lambda: {"generator": ctx.generator()}, name="draw")
'''

CONTRACT = """\
# The statement's contract (judge/exercises/clauses.py): every sentence of statement.en.md that says
# "must", "never" or "raise", quoted by a few of its words, with the cases that check it
# (suite.case). `python practice/judge.py contract <<number>>` prints the table; `check` fails
# while a binding sentence is missing here. TODO: one [[clause]] per sentence of your statement.

[[clause]]
quote = "Raises `ValueError` for `probs` not 1-D, a negative or NaN probability, or `n < 1`"
checks = ["public.n_zero", "hidden.bad_inputs"]

[[clause]]
quote = "`generator`: the only source of randomness"
checks = ["hidden.seeds"]

[[clause]]
quote = "Each call continues its stream (two calls in a row give different draws)"
checks = ["hidden.seeds"]

[[clause]]
quote = "Returns an `int64` tensor `[n]` of outcome indices in `[0, V)`"
checks = ["public.shape", "public.distribution", "hidden.distribution"]
"""

_VALIDATE = """\
import torch


def _validate(probs, n):
    if not isinstance(probs, torch.Tensor) or probs.dim() != 1 or not probs.is_floating_point():
        raise ValueError("probs must be a 1-D floating tensor [V]")
    if torch.isnan(probs).any() or (probs < 0).any():
        raise ValueError("probs must hold no NaN and no negative value")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
"""

REFERENCE = (
    '''\
"""Reference solution for exercise <<number>>: <<title_en>> (TODO: yours)."""

'''
    + _VALIDATE
    + """

def draw(probs, n, generator=None):
    _validate(probs, n)
    return torch.multinomial(probs, n, replacement=True, generator=generator)
"""
)

WRONG_IGNORES_GENERATOR = (
    '''\
"""Mistake: the draws come from torch's default generator; the generator argument is never used.

Diagnosis: with a generator given, the code still draws from (or re-seeds) torch's global generator
"""

'''
    + _VALIDATE
    + """

def draw(probs, n, generator=None):
    _validate(probs, n)
    return torch.multinomial(probs, n, replacement=True)
"""
)

EXPLANATION_EN = """\
# How the reference solution works

TODO: explain your reference step by step (`python practice/judge.py solution <<number>>` prints
this file).

1. Validate the inputs; each problem raises `ValueError` with a sentence that names it.
2. `torch.multinomial(probs, n, replacement=True, generator=generator)` draws the `n` outcomes.

# Common mistakes

- **Ignoring `generator`**: the draws come from the default generator, so a seeded generator does
  not reproduce them (`wrong/ignores_generator.py`).
"""

EXPLANATION_ZH = """\
# 参考解答的思路

TODO：逐步解释你的参考解答（`python practice/judge.py solution <<number>>` 会显示这个文件）。

1. 检查输入；每种问题都抛出 `ValueError`，并用一句话说明原因。
2. 用 `torch.multinomial(probs, n, replacement=True, generator=generator)` 抽取 `n` 个结果。

# 常见错误

- **忽略 `generator`**：抽样用的是默认生成器，固定种子的生成器无法复现结果（`wrong/ignores_generator.py`）。
"""

EXERCISE_FILES = {
    "exercise.toml": EXERCISE_TOML,
    "statement.en.md": STATEMENT_EN,
    "statement.zh.md": STATEMENT_ZH,
    "starter.py": STARTER,
    "tests/public/public.py": PUBLIC,
    "tests/hidden/hidden.py": HIDDEN,
    "tests/hidden/contract.toml": CONTRACT,
}
SOLUTION_FILES = {
    "reference.py": REFERENCE,
    "explanation.en.md": EXPLANATION_EN,
    "explanation.zh.md": EXPLANATION_ZH,
    "wrong/ignores_generator.py": WRONG_IGNORES_GENERATOR,
}
