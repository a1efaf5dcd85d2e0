"""The diff between two attempts, and the instructor's view of a submission around it."""

from __future__ import annotations

import random

import pytest

from tests.web.world import ROLES
from web.core.models import Submission
from web.services import services
from web.teaching import diffing
from web.teaching.diffing import MAX_BYTES, MAX_LINES, STEP_BUDGET, CodeDiff, DiffCache, code_diff

OLD = "import torch\n\n\ndef flip(p, n):\n    return p\n"
NEW = "import torch\n\n\ndef flip(p, n, generator=None):\n    u = torch.rand(3)\n    return u < p  # <b>\n"


def test_code_diff_numbers_lines_on_both_sides():
    diff = code_diff(OLD, NEW)
    assert (diff.added, diff.removed) == (3, 2)
    assert diff.lines[0].kind == "hunk" and diff.lines[0].text == "@@ -1,5 +1,6 @@"
    kinds = [(line.kind, line.old_number, line.new_number) for line in diff.lines[1:]]
    assert kinds == [("same", 1, 1), ("same", 2, 2), ("same", 3, 3), ("removed", 4, None), ("removed", 5, None),
                     ("added", None, 4), ("added", None, 5), ("added", None, 6)]
    assert code_diff(OLD, OLD).same


def test_code_diff_shows_only_the_changes_and_their_context():
    old = "".join(f"line {i}\n" for i in range(1, 41))
    new = old.replace("line 5\n", "line five\n").replace("line 35\n", "")
    diff = code_diff(old, new)
    assert [line.text for line in diff.lines if line.kind == "hunk"] == ["@@ -2,7 +2,7 @@", "@@ -32,7 +32,6 @@"]
    assert len(diff.lines) == 2 + 8 + 7


def _set_code(world, name: str, code: str) -> None:
    with services(world.app).sessions() as session:
        session.get(Submission, world.attempts[name]).code = code
        session.commit()


def test_a_learner_diffs_their_own_attempts(world):
    _set_code(world, "ann_39_wa", OLD)
    _set_code(world, "ann_39_ac", NEW)
    old, new = world.attempts["ann_39_wa"], world.attempts["ann_39_ac"]
    response = world.client("learner").get(f"/submissions/{old}/diff/{new}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert f"Attempts #{old} and #{new}" in html and "3 lines added, 2 removed." in html
    assert '<tr class="diff-removed"><td class="number">4</td><td class="number"></td>' in html
    assert '<tr class="diff-added"><td class="number"></td><td class="number">6</td>' in html
    assert "return u &lt; p  # &lt;b&gt;" in html and "<b>" not in html  # code is text, never markup
    assert 'class="verdict v-WA"' in html and 'class="verdict v-AC"' in html  # both verdicts
    assert "<script>" not in html.split("</head>")[1]  # the CSP forbids inline scripts
    zh = world.client("learner").get(f"/submissions/{old}/diff/{new}?lang=zh").get_data(as_text=True)
    assert "增加 3 行，删除 2 行。" in zh
    same = world.client("learner").get(f"/submissions/{old}/diff/{old}").get_data(as_text=True)
    assert "The two attempts have the same code." in same


def test_a_diff_of_other_learners_or_exercises_is_refused_with_a_reason(world):
    client = world.client("instructor")
    for first, second in (("ann_39_wa", "ann_1_late"), ("ann_39_wa", "bob_39_wa")):
        response = client.get(f"/submissions/{world.attempts[first]}/diff/{world.attempts[second]}")
        assert response.status_code == 400
        assert "A diff compares two attempts of one learner at one exercise" in response.get_data(as_text=True)


DIFF_STATUS = {"anonymous": 302, "learner": 200, "learner_elsewhere": 404, "other_instructor": 404,
               "instructor": 200, "admin": 200}


@pytest.mark.parametrize("role", ROLES)
def test_who_may_open_a_diff(world, role):
    old, new = world.attempts["ann_39_wa"], world.attempts["ann_39_ac"]
    response = world.client(role).get(f"/submissions/{old}/diff/{new}")
    assert response.status_code == DIFF_STATUS[role]
    if role == "anonymous":
        assert response.location.startswith("/auth/sign-in")


def test_a_diff_with_an_attempt_one_may_not_see_is_a_404(world):
    """On either side: the old attempt is checked as well as the new one."""
    ann = world.client("learner")
    mine, bobs = world.attempts["ann_39_wa"], world.attempts["bob_39_wa"]
    for old, new in ((mine, bobs), (bobs, mine), (mine, 999999), (999999, mine)):
        assert ann.get(f"/submissions/{old}/diff/{new}").status_code == 404, (old, new)


def _rich_report(world):
    """Give ann's WA attempt a report with a failed hidden case whose checks carry labels."""
    report = {"verdict": "WA", "score": {"passed": 1, "total": 2}, "message": "hidden row 3 is off",
              "diagnosis": "the sides are swapped", "seed": 4242, "cases": [
                  {"name": "public_small", "suite": "public", "title": "Small", "verdict": "AC", "message": "",
                   "time_ms": 3.0, "seed": 11, "statistic": 0.5, "p_value": 0.48, "checks": []},
                  {"name": "hidden_rows", "suite": "hidden", "title": "Rows", "verdict": "WA",
                   "message": "row 3: p=0.25 drew 1 in 80% of 4000 draws", "time_ms": 9.0, "seed": 12,
                   "statistic": 912.0, "p_value": 1e-12, "rule": "a row draws 1 too often",
                   "checks": [{"kind": "fit", "label": "row 3 (p=0.25)", "statistic": 912.0, "p_value": 1e-12,
                               "alpha": 1e-8, "passed": False}]}]}
    with services(world.app).sessions() as session:
        grading = session.get(Submission, world.attempts["ann_39_wa"]).current
        grading.report_json = report
        grading.seed = 4242
        grading.judge_version = "9.9.9"
        session.commit()


def test_the_instructor_sees_everything_with_history_neighbours_and_a_rejudge_button(world):
    _rich_report(world)
    wa, ac = world.attempts["ann_39_wa"], world.attempts["ann_39_ac"]
    html = world.client("instructor").get(f"/submissions/{wa}").get_data(as_text=True)
    assert "ann" in html and "# WA" in html  # the learner and the code
    assert "row 3: p=0.25 drew 1 in 80% of 4000 draws" in html  # the hidden case's full message
    assert "row 3 (p=0.25)" in html and "912" in html and "1e-12" in html  # the check, its label, statistic, p
    assert "Seed 12" in html or "seed 12" in html  # the case's seed
    assert 'id="gradings"' in html and "9.9.9" in html and "4242" in html and "(current)" in html
    assert f'action="/submissions/{wa}/rejudge"' in html and "Rejudge this submission" in html
    assert f'href="/submissions/{ac}" rel="next"' in html or f'rel="next" href="/submissions/{ac}"' in html
    assert 'rel="prev"' not in html  # the first attempt at the exercise
    zh = world.client("instructor").get(f"/submissions/{wa}?lang=zh").get_data(as_text=True)
    assert "本提交的评测记录" in zh and "重新评测此提交" in zh and "检验对象" in zh
    later = world.client("instructor").get(f"/submissions/{ac}?lang=en").get_data(as_text=True)
    assert f'href="/submissions/{wa}/diff/{ac}"' in later and "Diff with the previous attempt" in later


def test_the_learner_sees_no_instructor_part(world):
    _rich_report(world)
    wa = world.attempts["ann_39_wa"]
    html = world.client("learner").get(f"/submissions/{wa}").get_data(as_text=True)
    for secret in ("row 3: p=0.25", "row 3 (p=0.25)", "4242", 'id="gradings"', "/rejudge", "9.9.9" + "</td>",
                   "diff/"):
        assert secret not in html, secret
    assert "a row draws 1 too often" in html  # what a learner sees of the hidden case: its rule


def test_the_result_region_polled_by_the_page_shows_the_same(world):
    _rich_report(world)
    wa = world.attempts["ann_39_wa"]
    assert "row 3 (p=0.25)" in world.client("instructor").get(f"/submissions/{wa}/result").get_data(as_text=True)
    assert "row 3 (p=0.25)" not in world.client("learner").get(f"/submissions/{wa}/result").get_data(as_text=True)



# Bounded work: the inputs that made difflib quadratic, and the one that is all different.
def _random_lines(count: int, seed: int, width: int = 30) -> str:
    rng = random.Random(seed)
    return "".join("".join(rng.choice("abcdefghij ") for _ in range(width)) + "\n" for _ in range(count))


HALF = MAX_LINES // 2 - 1
WORST_INPUTS = {
    "two 36 KB files of random lines": (_random_lines(1200, 1), _random_lines(1200, 2)),
    "many identical lines, one changed": ("x = 1\n" * (MAX_LINES - 1), "x = 1\n" * HALF + "y\n" + "x = 1\n" * HALF),
    "two blocks swapped": ("a\n" * HALF + "b\n" * HALF, "b\n" * HALF + "a\n" * HALF),
    "two symbols in random order": (
        "".join(random.Random(3).choice("ab\n") for _ in range(3 * MAX_LINES // 2)),
        "".join(random.Random(4).choice("ab\n") for _ in range(3 * MAX_LINES // 2)),
    ),
    "one long line": ("a" * 36_000, "b" * 36_000),
}


@pytest.mark.parametrize("name", WORST_INPUTS)
def test_the_worst_diff_inputs_stay_within_the_step_budget(name):
    old, new = WORST_INPUTS[name]
    diff = code_diff(old, new)
    assert not diff.too_large
    assert diff.steps <= STEP_BUDGET + MAX_LINES, diff.steps  # the budget, overshot by one snake at most
    # Whatever the pairing, a diff accounts for every line of both sides.
    assert len(old.splitlines()) - diff.removed == len(new.splitlines()) - diff.added


def test_code_over_the_limits_is_not_diffed():
    assert code_diff("x = 1\n" * MAX_LINES, "x = 2\n").too_large
    assert code_diff("x", "#" * (MAX_BYTES + 1)).too_large
    assert not code_diff("x = 1\n" * MAX_LINES, "x = 2\n").same


def test_past_the_budget_the_changed_middle_is_one_replacement():
    old = "head\n" + "a\n" * 25 + "b\n" * 25 + "tail\n"
    new = "head\n" + "b\n" * 25 + "a\n" * 25 + "tail\n"
    diff = code_diff(old, new, budget=10)
    assert diff.coarse and (diff.added, diff.removed) == (50, 50)
    assert [line.kind for line in diff.lines[1:3]] == ["same", "removed"]  # head and tail are still paired
    assert not code_diff(old, new).coarse


@pytest.mark.parametrize("seed", range(200))
def test_the_pairing_is_a_longest_common_subsequence(seed):
    rng = random.Random(seed)
    a = [rng.randint(0, 3) for _ in range(rng.randint(0, 12))]
    b = [rng.randint(0, 3) for _ in range(rng.randint(0, 12))]
    longest = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            longest[i + 1][j + 1] = longest[i][j] + 1 if x == y else max(longest[i][j + 1], longest[i + 1][j])
    diff = code_diff("".join(f"{x}\n" for x in a), "".join(f"{y}\n" for y in b))
    assert (diff.removed, diff.added) == (len(a) - longest[-1][-1], len(b) - longest[-1][-1])


def test_code_too_large_to_diff_is_offered_as_two_downloads(world):
    big_old, big_new = "x = 1\n" * 6000, "x = 1\n" * 3000 + "y\n" + "x = 1\n" * 3000  # two 36 KB files
    _set_code(world, "ann_39_wa", big_old)
    _set_code(world, "ann_39_ac", big_new)
    old, new = world.attempts["ann_39_wa"], world.attempts["ann_39_ac"]
    ann = world.client("learner")
    html = ann.get(f"/submissions/{old}/diff/{new}").get_data(as_text=True)
    assert "too large to diff here" in html and 'id="diff"' not in html
    assert f'href="/submissions/{old}/code"' in html and f'href="/submissions/{new}/code"' in html
    assert "太大，无法在此比较" in ann.get(f"/submissions/{old}/diff/{new}?lang=zh").get_data(as_text=True)
    download = ann.get(f"/submissions/{new}/code")
    assert download.status_code == 200 and download.get_data(as_text=True) == big_new
    assert download.headers["Content-Disposition"] == f'attachment; filename="submission-{new}.py"'
    assert world.client("learner").get(f"/submissions/{world.attempts['bob_39_wa']}/code").status_code == 404


@pytest.mark.parametrize("lang, note", [("en", "differ in too many places"), ("zh", "差异太多")])
def test_a_diff_past_its_budget_says_it_shows_the_middle_as_one_replacement(world, lang, note):
    old, new = WORST_INPUTS["two blocks swapped"]
    _set_code(world, "ann_39_wa", old)
    _set_code(world, "ann_39_ac", new)
    url = f"/submissions/{world.attempts['ann_39_wa']}/diff/{world.attempts['ann_39_ac']}?lang={lang}"
    html = world.client("learner").get(url).get_data(as_text=True)
    assert 'id="diff-coarse"' in html and note in html and 'id="diff"' in html


def test_a_diff_is_computed_once_per_pair(world, monkeypatch):
    computed = []
    monkeypatch.setattr(diffing, "code_diff", lambda old, new: computed.append(1) or CodeDiff([], 0, 0))
    old, new = world.attempts["ann_39_wa"], world.attempts["ann_39_ac"]
    client = world.client("learner")
    for _ in range(3):
        assert client.get(f"/submissions/{old}/diff/{new}").status_code == 200
    assert len(computed) == 1


def test_the_cache_holds_a_bounded_number_of_diffs():
    cache = DiffCache(size=2)
    for pair in range(5):
        cache.diff(pair, "a\n", pair + 100, "b\n")
    assert len(cache._diffs) == 2 and (4, 104) in cache._diffs


def test_diffs_are_rate_limited_per_account(make_site):
    from tests.web.world import build_world

    world = build_world(make_site(start_workers=False, rate_limits=True))
    old, new = world.attempts["ann_39_wa"], world.attempts["ann_39_ac"]
    ann = world.client("learner")
    assert [ann.get(f"/submissions/{old}/diff/{new}").status_code for _ in range(60)] == [200] * 60
    refused = ann.get(f"/submissions/{old}/diff/{new}?lang=zh")
    assert refused.status_code == 429 and "请求过于频繁" in refused.get_data(as_text=True)
    assert world.client("instructor").get(f"/submissions/{old}/diff/{new}").status_code == 200
