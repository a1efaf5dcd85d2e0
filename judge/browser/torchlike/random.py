"""torch.random in the subset: the default generator's seeding and state, and fork_rng."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from judge.browser.torchlike._random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__all__ = [
    "Generator",
    "default_generator",
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
]


@contextlib.contextmanager
def fork_rng(
    devices=None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: str = "cuda",
) -> Iterator[None]:
    """Inside the block, draw and reseed the default generator freely; on leaving, its state is back.

    The browser has no GPU, so ``devices`` and ``device_type`` have nothing to fork.
    """
    del devices, _caller, _devices_kw, device_type
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def __getattr__(name: str):
    from judge.browser.torchlike._errors import UnsupportedOperation

    if name.startswith("__"):
        raise AttributeError(name)
    raise UnsupportedOperation(f"torch.random.{name}")
