"""The small verification context shared by the public cases and the tiny variant (K = 2, V = 4).

At position 0 the draft proposes tokens 1..3 more than twice too often (ratio p/q = 5/12) and
token 0 too rarely, so a rejection (probability 0.525) must emit token 0: the residual is one
token, and every mistake about the residual or the ratio moves a lot of probability.
"""

PS = [[0.625, 0.125, 0.125, 0.125], [0.10, 0.05, 0.60, 0.25], [0.05, 0.10, 0.25, 0.60]]
QS = [[0.10, 0.30, 0.30, 0.30], [0.20, 0.10, 0.30, 0.40]]

# Position 0 drafts a token of target probability 0 nine times in ten: fed uniforms of exactly 0
# (about 2 % of them), a rule that accepts when u <= p/q emits that token.
ZERO_P = [[0.5, 0.5, 0.0], [1 / 3, 1 / 3, 1 / 3]]
ZERO_Q = [[0.05, 0.05, 0.9]]
