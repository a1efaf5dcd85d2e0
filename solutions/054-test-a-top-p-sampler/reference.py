"""Reference solution for exercise 54: a statistical test of a top-p sampler.

One call of `sample_fn` draws 16 000 tokens for each of six rows (96 000 of the 100 000 allowed):

- rows 0, 2 and 3 share one set of logits, with top_p 0.6, 0.85 and 1 (a per-row tensor, so a
  sampler that reads row 0's top_p for every row changes rows 2 and 3);
- row 1 holds the same probabilities in another vocabulary order (adding up in index order instead
  of sorted order keeps other tokens there);
- rows 4 and 5 repeat row 0 exactly (rows sharing their random numbers agree draw for draw).

Probabilities 0.40, 0.25, 0.15, 0.10, 0.06, 0.04 put the running totals at 0.40, 0.65, 0.80, 0.90,
0.96, 1, each far from the top_p values; at top_p 0.6 the crossing token holds 0.25 of the mass,
so dropping it, keeping one more, or giving it the mass cut away all move a quarter of the draws.

Then four checks, their levels adding up to 0.03 (Bonferroni; below the allowed 0.05, leaving
room for the Wilson-Hilferty tail approximation):

1. support: a token outside a row's kept set is a certain failure (no level spent);
2. fit: Pearson's X^2 of every row's counts against its exact top-p law, summed over the rows;
3. within a row: the pairs of draws (0, 1), (2, 3), ... are equal, descending or ascending with
   probabilities s, (1 - s) / 2, (1 - s) / 2 (s = sum of q_i^2); sorted or repeated draws break it;
4. across rows: rows 4 and 5 (identical) agree at draw j with probability s (a z-test).
"""

import math

import torch

PROBS = [0.40, 0.25, 0.15, 0.10, 0.06, 0.04]
PERMUTED = [4, 2, 0, 5, 1, 3]  # row 1 holds PROBS[PERMUTED[i]] at index i: sorted order is not index order
TOP_P = [0.6, 0.6, 0.85, 1.0, 0.6, 0.6]
DRAWS = 16_000
LEVEL = 0.01  # each of the three checks that spend a level (0.03 in all)


def top_p_law(probs, top_p):
    """The exact top-p distribution of one row (float64): keep a token while the mass before it,
    in decreasing order, is below top_p; renormalize."""
    probs = torch.as_tensor(probs, dtype=torch.float64)
    ordered, order = probs.sort(descending=True)
    keep_sorted = (torch.cumsum(ordered, 0) - ordered < top_p) | (top_p >= 1)
    keep = torch.zeros_like(keep_sorted).scatter(0, order, keep_sorted)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return kept / kept.sum()


def chi_square_tail(statistic, df):
    """P(chi2_df >= statistic) by the Wilson-Hilferty cube-root normal approximation."""
    if df <= 0:
        return 1.0
    z = ((statistic / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def pearson(counts, expected):
    """X^2 over the cells with a positive expectation, and its degrees of freedom."""
    cells = expected > 0
    observed, wanted = counts[cells].to(torch.float64), expected[cells]
    return float(((observed - wanted) ** 2 / wanted).sum()), int(cells.sum()) - 1


def test_sampler(sample_fn):
    base = torch.tensor(PROBS, dtype=torch.float64)
    rows = [base, base[PERMUTED], base, base, base, base]
    logits = torch.stack([row.log() for row in rows])
    laws = [top_p_law(row, p) for row, p in zip(rows, TOP_P)]
    draws = sample_fn(logits, DRAWS, torch.tensor(TOP_P, dtype=torch.float64))
    if not isinstance(draws, torch.Tensor) or tuple(draws.shape) != (len(rows), DRAWS):
        return False
    draws = draws.long()
    if bool(((draws < 0) | (draws >= len(PROBS))).any()):
        return False

    fit, fit_df, pairs, pairs_df = 0.0, 0, 0.0, 0
    for row, law in enumerate(laws):
        counts = torch.bincount(draws[row], minlength=len(PROBS))
        if bool((counts[law == 0] > 0).any()):
            return False  # 1. a token the law excludes: certain
        statistic, df = pearson(counts, law * DRAWS)  # 2. the counts fit the law
        fit, fit_df = fit + statistic, fit_df + df
        first, second = draws[row, 0::2], draws[row, 1::2]  # 3. pairs (0, 1), (2, 3), ...
        same = float((law**2).sum())
        kinds = torch.stack([(first == second).sum(), (first > second).sum(), (first < second).sum()])
        expected = torch.tensor([same, (1 - same) / 2, (1 - same) / 2], dtype=torch.float64) * first.numel()
        statistic, df = pearson(kinds, expected)
        pairs, pairs_df = pairs + statistic, pairs_df + df
    if chi_square_tail(fit, fit_df) < LEVEL or chi_square_tail(pairs, pairs_df) < LEVEL:
        return False

    same = float((laws[4] ** 2).sum())  # 4. identical rows 4 and 5 agree draw for draw as chance says
    agree = int((draws[4] == draws[5]).sum())
    z = (agree - DRAWS * same) / math.sqrt(DRAWS * same * (1 - same))
    return math.erfc(abs(z) / math.sqrt(2)) >= LEVEL  # two-sided normal tail
