"""Which draws of a row are tested together for independence: the pairings of
:func:`judge.checks.independence.expect_independent_within_row`.

A correct sampler's draws are independent and identically distributed, so *any* set of disjoint
pairs of positions gives pairs that are independent of each other and each distributed as the
product ``p x p``: a pooled G-test of their joint counts is exact in its assumptions, whatever
pairs are chosen. Each pairing looks where a known mistake puts its dependence:

- ``consecutive``: (1, 2), (3, 4), ... -- antithetic pairs ``u, 1 - u``, repeated draws, sorted rows;
- ``half apart``: (j, j + h) with ``h = n // 2`` -- the second half of the draws reusing the first
  half's random numbers (``1 - u`` of draw j at draw j + n/2);
- ``mirrored``: (j, n - 1 - j) -- the draws read from both ends of one set of random numbers.

A pairing the row is too short for (one that would repeat the pairs of an earlier one) is left
out, so ``n = 2`` has one pairing and ``n = 3`` two; from ``n = 4`` on there are three. Positions
count within each row of ``[m, n]`` draws (``m`` rows of one target drawn in one call): a
dependence within the rows the learner's function returned is found at its own lag, and the
pairs of all ``m`` rows are pooled.

Pure tensor slicing (no advanced indexing): the browser's torch subset runs it too.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from judge.i18n import Bilingual

HALF_APART_DIAGNOSIS = Bilingual(
    "draw j and draw j + n/2 of a row depend on each other (for example the second half of the draws "
    "reuses the first half's random numbers as 1 - u): every draw needs its own independent random number",
    "同一行的第 j 个与第 j + n/2 个抽样结果相互依赖（例如后一半抽样以 1 - u 的形式重用了前一半的随机数）："
    "每次抽样都需要自己独立的随机数",
)
MIRRORED_DIAGNOSIS = Bilingual(
    "draws are mirrored: draw j and draw n - 1 - j of a row reuse the same random number (for example u "
    "and 1 - u, read from both ends): every draw needs its own independent random number",
    "抽样结果呈镜像：同一行的第 j 个与第 n - 1 - j 个抽样结果重用了同一个随机数（例如从两端读取的 u 与 1 - u）："
    "每次抽样都需要自己独立的随机数",
)


@dataclass(frozen=True)
class Pairing:
    """One set of disjoint pairs of positions of a row, and how a failure of it is told.

    ``first``/``second``: int64 ``[m, k]``, the classes of the first and second draw of each of
    the ``k`` pairs of each of the ``m`` rows. ``pairs`` says which positions, for messages
    (``(draw 1, draw 2), (draw 3, draw 4), ...``); ``rule`` is the public rule of a failure;
    ``diagnosis`` the mistake it points to, None where the caller decides (consecutive draws:
    sorted, repeated or otherwise dependent)."""

    name: str
    noun: str
    first: torch.Tensor
    second: torch.Tensor
    pairs: str
    rule: Bilingual
    diagnosis: Bilingual | None

    def joint_counts(self, groups: int) -> torch.Tensor:
        """How often each pair of classes occurs: int64 ``[groups * groups]``, first class major."""
        cells = (self.first * groups + self.second).reshape(-1)
        return torch.bincount(cells, minlength=groups * groups)


def row_pairings(classes: torch.Tensor) -> list[Pairing]:
    """The pairings of ``classes``, int64 ``[m, n]``: each row's draws, as classes (rows of fewer
    than two draws have no pairs: one pairing, empty)."""
    n = classes.shape[1]
    half = n // 2
    consecutive = Pairing(
        "consecutive",
        "consecutive draws of the row",
        classes[:, 0 : 2 * half : 2],
        classes[:, 1 : 2 * half : 2],
        "(draw 1, draw 2), (draw 3, draw 4), ...",
        Bilingual("consecutive draws are not independent", "相邻的抽样结果不独立"),
        None,
    )
    found = [consecutive]
    if half >= 2:  # n = 2, 3: (j, j + 1) again
        found.append(
            Pairing(
                "half apart",
                "draws half a row apart",
                classes[:, :half],
                classes[:, half : 2 * half],
                f"(draw 1, draw {half + 1}), (draw 2, draw {half + 2}), ...",
                Bilingual("draws half a row apart are not independent", "相隔半行的抽样结果不独立"),
                HALF_APART_DIAGNOSIS,
            )
        )
    if n >= 3:  # n = 2: (1, 2) again
        found.append(
            Pairing(
                "mirrored",
                "draws at mirrored positions of the row",
                classes[:, :half],
                classes[:, n - half :].flip(1),
                f"(draw 1, draw {n}), (draw 2, draw {n - 1}), ...",
                Bilingual(
                    "draws at mirrored positions (first and last, second and second to last, ...) are not independent",
                    "镜像位置上的抽样结果（第一个与最后一个、第二个与倒数第二个……）不独立",
                ),
                MIRRORED_DIAGNOSIS,
            )
        )
    return found
