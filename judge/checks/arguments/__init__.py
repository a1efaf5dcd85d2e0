"""Bad inputs generated from a statement's contract, and the legal corners it allows.

An exercise describes, per argument of a function, what its statement allows (a spec: kind, named
dimensions, dtypes, value range, "-inf allowed", "each row sums > 0", "ids in [0, V)", ...) and in
``refuse`` which of its refusal sentences apply (:class:`Flaw`). From a good call its hidden suite
provides, the judge then draws, under the case's seed, every applicable bad variant with exactly one
thing wrong (NaN at a random entry, -tiny, u = 1, int64 where floats are required, one dimension
fewer, a ``[B, 1]`` parameter tensor, a count of 0, an unknown method, ...) and every legal corner
(exact zeros, -inf logits, u = 0 and the largest float below 1, B = 1, a count at its minimum, ...):

    expect_contract_refusals(sub.sample, ctx, good=good, arguments=SAMPLE_ARGUMENTS, extra=...)
    expect_contract_accepts(sub.sample, ctx, good=good, arguments=SAMPLE_ARGUMENTS, check=oracle)

Everything here runs in the judge's process with the real torch (it is not part of the browser's
bundle). docs/checks.md ("Bad inputs generated from the contract") and docs/authoring.md say how to
write the specs.

May import: the rest of :mod:`judge.checks` (its checks and ``testing``), ``judge.learner`` (the
wire's dtypes, ``LearnerRaised``), ``judge.i18n`` and torch. Imported by: the exercises' hidden
suites.
"""

from judge.checks.arguments.base import NOT_FINITE, ArgumentSpec, Flaw, Sizes, Variant
from judge.checks.arguments.checks import (
    contract_refusals,
    expect_contract_accepts,
    expect_contract_refusals,
    public_call,
)
from judge.checks.arguments.floats import FloatTensor, Logits, Probabilities, Uniforms, Values
from judge.checks.arguments.generate import MAX_VARIANTS, VariantError, bad_inputs, legal_inputs
from judge.checks.arguments.scalars import Choice, Count, Number, PerRow
from judge.checks.arguments.tensors import FLOAT32_64, HALF_PRECISION, INTEGER_AND_BOOL, Mask, TensorSpec, TokenIds

__all__ = [
    "FLOAT32_64",
    "HALF_PRECISION",
    "INTEGER_AND_BOOL",
    "MAX_VARIANTS",
    "NOT_FINITE",
    "ArgumentSpec",
    "Choice",
    "VariantError",
    "Count",
    "Flaw",
    "FloatTensor",
    "Logits",
    "Mask",
    "Number",
    "PerRow",
    "Probabilities",
    "Sizes",
    "TensorSpec",
    "TokenIds",
    "Uniforms",
    "Values",
    "Variant",
    "bad_inputs",
    "contract_refusals",
    "expect_contract_accepts",
    "expect_contract_refusals",
    "legal_inputs",
    "public_call",
]
