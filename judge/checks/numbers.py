"""How two numbers that a message compares are written: with enough digits to read differently.

"you returned 0.7, expected 0.7" tells a learner nothing; :func:`format_pair` writes the pair with
the fewest significant digits, from the usual six up, at which the two texts differ ("0.7000001,
expected 0.7"), and at worst as ``repr`` writes them (which tells every two floats apart). Every
message of the judge that sets two numbers side by side writes them with it. Pure Python (the
browser ships it).
"""

from __future__ import annotations

import math

__all__ = ["DEFAULT_DIGITS", "format_pair"]

DEFAULT_DIGITS = 6  # significant digits of a number in a message, as ``f"{x:.6g}"`` writes it


def format_pair(first: float, second: float, digits: int = DEFAULT_DIGITS) -> tuple[str, str]:
    """``first`` and ``second`` as texts that differ whenever the numbers do.

    Each is written with ``digits`` significant digits (``.6g`` by default); when the two texts are
    then equal although the numbers are not, with one digit more, and so on up to 16, then as
    ``repr`` writes them (the shortest text that reads back as the float: every two different
    floats differ there). Equal numbers (NaN and NaN,
    the same infinity) are written with ``digits``. ``first``/``second``: anything ``float()`` takes.
    """
    a, b = float(first), float(second)
    same = a == b or (math.isnan(a) and math.isnan(b))
    for width in range(max(1, digits), 17):
        texts = f"{a:.{width}g}", f"{b:.{width}g}"
        if same or texts[0] != texts[1]:
            return texts
    return repr(a), repr(b)
