"""The public inputs of exercise 49: the statement's worked example (the number format
``[0-9]+(\\.[0-9]+)?`` then an end token, over the tokens "1", "23", ".", ".5", "x", <eos>) and a few small
automata. Inputs only: the expected values are frozen in ``frozen49.py``.
"""

from __future__ import annotations

import torch

TOKENS = ("1", "23", ".", ".5", "x", "<eos>")
# transitions[s, v]: the state after token v in state s, -1 where v is not allowed. States: 0 nothing yet,
# 1 digits, 2 digits and a point, 3 digits after the point, 4 finished (only <eos> again).
REGEX = torch.tensor(
    [
        [1, 1, -1, -1, -1, -1],
        [1, 1, 2, 3, -1, 4],
        [3, 3, -1, -1, -1, -1],
        [3, 3, -1, -1, -1, 4],
        [-1, -1, -1, -1, -1, 4],
    ]
)
EXAMPLE_ROW = [1.0, 0.5, 2.0, 1.5, 3.0, 0.0]  # the model likes "x" best
EXAMPLE_STATES = torch.tensor([0, 1, 3])
EXAMPLE_LOGITS = torch.tensor([EXAMPLE_ROW] * 3, dtype=torch.float64)

# The statement's table: the settings on state 1 in one call with per-row parameters (top_k=2, top_p=0.8,
# temperature=0.5, temperature=0), so that a mistake is named only when it explains every setting at once;
# then the defaults on states 0, 1 and 3.
TABLE_SETTINGS = ("top_k=2", "top_p=0.8", "temperature=0.5", "temperature=0")
CALLS = {
    "table": {
        "logits": torch.tensor([EXAMPLE_ROW] * 4, dtype=torch.float64),
        "transitions": REGEX,
        "states": torch.tensor([1, 1, 1, 1]),
        "temperature": torch.tensor([1.0, 1.0, 0.5, 0.0], dtype=torch.float64),
        "top_k": torch.tensor([2, 0, 0, 0]),
        "top_p": torch.tensor([1.0, 0.8, 1.0, 1.0], dtype=torch.float64),
    },
    "defaults": {"logits": EXAMPLE_LOGITS, "transitions": REGEX, "states": EXAMPLE_STATES},
}


def state_one(copies: int = 1) -> dict:
    """The example row in state 1 with the defaults, ``copies`` times."""
    return {
        "logits": torch.tensor([EXAMPLE_ROW] * copies, dtype=torch.float64),
        "transitions": REGEX,
        "states": torch.ones(copies, dtype=torch.int64),
    }


# States 0 -> 1 -> 2 (dead) along token 0; state 3 is dead and unreachable: two steps from state 0 end in the
# dead state 2, which is never drawn from. State 0's largest logit is a disallowed token's.
UNREACHABLE_TRANSITIONS = torch.tensor([[1, 0, -1], [2, -1, 1], [-1, -1, -1], [-1, -1, -1]])
UNREACHABLE_LOGITS = torch.tensor([[0.5, 0.0, 9.0], [0.0, 1.0, 0.3], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])


def generate_call(rows: int, steps: int = 4) -> dict:
    """The statement's generate_constrained example: every logit 0, ``rows`` rows from state 0."""
    return {
        "state_logits": torch.zeros(5, 6),
        "transitions": REGEX,
        "start_states": torch.zeros(rows, dtype=torch.int64),
        "num_steps": steps,
    }


UNREACHABLE_STATES = torch.tensor([0, 1, 2, 3, 0])
# The same automaton with its dead states given a token (0, back to state 0): a legal call of the same shapes.
LIVE_TRANSITIONS = torch.tensor([[1, 0, -1], [2, -1, 1], [0, -1, -1], [0, -1, -1]])


def live_call(rows: int = 40) -> dict:
    """generate_constrained on LIVE_TRANSITIONS, two steps from state 0: the unreachable case without its twist."""
    return {
        "state_logits": UNREACHABLE_LOGITS,
        "transitions": LIVE_TRANSITIONS,
        "start_states": torch.zeros(rows, dtype=torch.int64),
        "num_steps": 2,
    }


# A toy model over the number automaton whose logits differ from state to state (the tiny suite's sequences).
SEQUENCE_LOGITS = torch.tensor(
    [
        [1.5, -0.5, 0.0, 0.0, 2.0, 0.0],
        [-1.0, 0.5, 1.2, 0.3, 2.5, 0.8],
        [0.2, 1.4, 0.0, 0.0, 1.0, 0.0],
        [1.0, -0.8, 0.0, 0.0, 0.0, 1.5],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    ]
)


def extreme_call(dtype: torch.dtype, rows: int = 128, vocab: int = 32, seed: int = 49) -> dict:
    """Rows in states that disallow token 0 and the last token, most other tokens allowed, finite logits:
    a call whose tokens must stay allowed with any uniform. Its support is its mask (no filter)."""
    g = torch.Generator().manual_seed(seed)
    table = torch.randint(0, 4, (4, vocab), generator=g)
    table[torch.rand(4, vocab, generator=g) < 0.1] = -1
    table[:, 0] = -1
    table[:, vocab - 1] = -1
    table[:, 1] = 0
    states = torch.randint(0, 4, (rows,), generator=g)
    logits = (torch.randn(rows, vocab, generator=g, dtype=torch.float64) * 1.5).round(decimals=2).to(dtype)
    return {"logits": logits, "transitions": table, "states": states}


def single_token_call(dtype: torch.dtype, rows: int = 40) -> dict:
    """Rows of three tokens whose state allows only token 1 or only token 2: a pushed u of 0 lands on the one
    allowed token half the time or more (Gumbel noise of -inf there leaves nothing finite)."""
    table = torch.tensor([[-1, 0, -1], [-1, -1, 1]])
    g = torch.Generator().manual_seed(4949)
    states = torch.randint(0, 2, (rows,), generator=g)
    logits = (torch.randn(rows, 3, generator=g, dtype=torch.float64)).round(decimals=2).to(dtype)
    return {"logits": logits, "transitions": table, "states": states}
