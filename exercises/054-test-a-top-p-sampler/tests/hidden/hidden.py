"""Hidden suite of exercise 54: the learner's test against correct samplers and each catalogued mistake.

Every case runs the learner's `test_sampler` many times through the write-the-test engine
(judge/exercises/write_the_test.py); the samplers run in the judge's process behind `sample_fn`
(host.py), never in the learner's. The numbers (alpha, power, runs, the budget of each run) and
the mistakes are exercise.toml's [write_the_test].
"""

from pathlib import Path

from judge.checks.testing import lane_weight
from judge.exercises.write_the_test import WriteTheTest

from .host import host

KIT = WriteTheTest.load(Path(__file__).resolve().parents[2])
BUDGET = KIT.budget()  # one rates check per case below


@lane_weight(5)
def test_false_failures(sub, ctx):
    """Your test rarely fails a correct sampler (200 runs, alpha = 0.05)

    zh: 你的检验很少冤枉正确的采样器（200 次运行，alpha = 0.05）
    """
    KIT.false_failures(sub, ctx, host)


def test_catches_top_p_ignored(sub, ctx):
    """Your test catches a sampler that ignores top_p

    zh: 你的检验抓住忽略 top_p 的采样器
    """
    KIT.power_against(sub, ctx, "top_p_ignored", host)


def test_catches_crossing_token_dropped(sub, ctx):
    """Your test catches a sampler that drops the crossing token

    zh: 你的检验抓住丢掉越过阈值 token 的采样器
    """
    KIT.power_against(sub, ctx, "crossing_token_dropped", host)


def test_catches_one_token_too_many(sub, ctx):
    """Your test catches a sampler that keeps one token too many

    zh: 你的检验抓住多留一个 token 的采样器
    """
    KIT.power_against(sub, ctx, "one_token_too_many", host)


def test_catches_vocabulary_order(sub, ctx):
    """Your test catches a sampler that adds up in vocabulary order

    zh: 你的检验抓住按词表顺序累加的采样器
    """
    KIT.power_against(sub, ctx, "vocabulary_order", host)


def test_catches_row0_top_p(sub, ctx):
    """Your test catches a sampler that uses row 0's top_p for every row

    zh: 你的检验抓住所有行都用第 0 行 top_p 的采样器
    """
    KIT.power_against(sub, ctx, "row0_top_p", host)


def test_catches_rows_share_uniforms(sub, ctx):
    """Your test catches a sampler whose rows share random numbers

    zh: 你的检验抓住各行共用随机数的采样器
    """
    KIT.power_against(sub, ctx, "rows_share_uniforms", host)


def test_catches_sorted_draws(sub, ctx):
    """Your test catches a sampler that sorts each row's draws

    zh: 你的检验抓住把抽样结果排序的采样器
    """
    KIT.power_against(sub, ctx, "sorted_draws", host)


def test_catches_repeated_draws(sub, ctx):
    """Your test catches a sampler that repeats each draw

    zh: 你的检验抓住重复返回抽样结果的采样器
    """
    KIT.power_against(sub, ctx, "repeated_draws", host)


def test_catches_not_renormalized(sub, ctx):
    """Your test catches a sampler that does not renormalize after top-p

    zh: 你的检验抓住 top-p 之后没有重新归一化的采样器
    """
    KIT.power_against(sub, ctx, "not_renormalized", host)
