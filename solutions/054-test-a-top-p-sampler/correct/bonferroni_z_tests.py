"""A second correct test of a top-p sampler: many z-tests, Bonferroni-corrected.

Where the reference pools Pearson statistics and reads a chi-square tail, this one makes every
decision a two-sided normal test on one count, and splits alpha between all of them:

- one call, four rows of 20 000 draws: top_p 0.9 on row 0 and 0.65 on the others (a sampler using
  row 0's top_p everywhere keeps extra tokens there), row 1 a permutation of the others' logits,
  rows 2 and 3 identical;
- support: a draw of an excluded token rejects outright;
- fit (level 0.01): one z-test per row and kept token, count against n q;
- order within a row (level 0.01): on the pairs (0, 1), (2, 3), ... a sign test (ascents against
  descents, equally likely under independence) and the rate of equal pairs against sum q^2;
- across rows (level 0.01): rows 2 and 3 agree draw for draw at rate sum q^2.
"""

import math

import torch

PROBS = [0.5, 0.2, 0.15, 0.1, 0.05]
ROWS = [[0, 1, 2, 3, 4], [3, 0, 4, 1, 2], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]
TOP_P = [0.9, 0.65, 0.65, 0.65]
N = 20_000


def two_sided(z):
    return math.erfc(abs(z) / math.sqrt(2))


def z_score(count, total, rate):
    return (count - total * rate) / math.sqrt(total * rate * (1 - rate))


def law(probs, top_p):
    """Keep each token whose more likely predecessors hold less than top_p, then renormalize."""
    kept = []
    for index, prob in enumerate(probs):
        before = sum(other for j, other in enumerate(probs) if other > prob or (other == prob and j < index))
        kept.append(prob if before < top_p or top_p >= 1 else 0.0)
    total = sum(kept)
    return [prob / total for prob in kept]


def test_sampler(sample_fn):
    rows = [[PROBS[i] for i in order] for order in ROWS]
    logits = torch.tensor([[math.log(p) for p in row] for row in rows], dtype=torch.float32)
    draws = sample_fn(logits=logits, num_samples=N, top_p=torch.tensor(TOP_P, dtype=torch.float32))
    if not isinstance(draws, torch.Tensor) or tuple(draws.shape) != (len(rows), N):
        return False
    laws = [law(row, p) for row, p in zip(rows, TOP_P)]
    fit_tests = sum(1 for q in laws for x in q if x > 0)
    fit_level = 0.01 / fit_tests
    order_level = 0.01 / (2 * len(rows))
    for row, q in enumerate(laws):
        values = draws[row].tolist()
        counts = [0] * len(q)
        for token in values:
            if not 0 <= token < len(q) or q[token] == 0:
                return False
            counts[token] += 1
        for token, rate in enumerate(q):
            if 0 < rate < 1 and two_sided(z_score(counts[token], N, rate)) < fit_level:
                return False
        pairs = list(zip(values[0::2], values[1::2]))
        ascents = sum(1 for a, b in pairs if a < b)
        descents = sum(1 for a, b in pairs if a > b)
        equal = len(pairs) - ascents - descents
        same = sum(x * x for x in q)
        if ascents + descents and two_sided(z_score(ascents, ascents + descents, 0.5)) < order_level:
            return False
        if same < 1 and two_sided(z_score(equal, len(pairs), same)) < order_level:
            return False
    same = sum(x * x for x in laws[2])
    agree = int((draws[2] == draws[3]).sum())
    return two_sided(z_score(agree, N, same)) >= 0.01
