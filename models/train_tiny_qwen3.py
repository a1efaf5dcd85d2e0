"""Train ``models/tiny-qwen3``: a byte-level BPE tokenizer and a 2-layer Qwen3-style model.

The exercises want real next-token distributions (a peaked head, a long tail) without a
download at run time, so the project ships a model small enough for git and a CPU. This script
is how it was made; it is never run by the tests (weights trained on two CPUs with different
instruction sets differ, so the shipped files are the reference and CI only loads them).

    .venv/bin/python models/train_tiny_qwen3.py            # about 3 minutes on 2 cores
    .venv/bin/python models/train_tiny_qwen3.py --steps 50 --out /tmp/try   # a quick try

What it does, in order:

1. Reads the public-domain corpus (``models/corpus/devils-dictionary.txt``) and takes out the
   held-out passage (``models/passage.txt``), so the exercises' logits are predictions on text
   the model never saw, not recitations.
2. Trains a byte-level BPE tokenizer (``tokenizers``) with a 2 000-token vocabulary. Byte-level
   means every string can be encoded; no unknown token.
3. Trains ``transformers.Qwen3ForCausalLM`` (RMSNorm, rotary positions, grouped-query
   attention, SwiGLU, tied embeddings: the Qwen3 architecture at toy scale) with AdamW on random
   128-token windows, a fixed seed, a cosine learning rate.
4. Writes ``config.json``, ``model.safetensors``, the tokenizer files, ``training.json`` (the
   settings, losses, versions and a SHA-256 of every file it wrote) and ``fingerprint.json``
   (a few logits of the passage, which the tests compare within the cross-machine tolerance).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import platform
import time
from pathlib import Path

import torch

MODELS_DIR = Path(__file__).resolve().parent
CORPUS = MODELS_DIR / "corpus" / "devils-dictionary.txt"
PASSAGE = MODELS_DIR / "passage.txt"
OUT = MODELS_DIR / "tiny-qwen3"
END_OF_TEXT = "<|endoftext|>"


def training_text() -> str:
    """The corpus without the held-out passage (which must occur in it exactly once)."""
    corpus = CORPUS.read_text(encoding="utf-8")
    passage = PASSAGE.read_text(encoding="utf-8")
    if corpus.count(passage) != 1:
        raise SystemExit(f"{PASSAGE.name} must occur exactly once in {CORPUS.name}")
    return corpus.replace(passage, "")


def train_tokenizer(text: str, vocab_size: int):  # -> transformers.PreTrainedTokenizerFast
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[END_OF_TEXT],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),  # all 256 bytes: nothing is unknown
        show_progress=False,
    )
    tokenizer.train_from_iterator([text], trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token=END_OF_TEXT, bos_token=END_OF_TEXT)


def build_model(vocab_size: int, eos_id: int):  # -> transformers.Qwen3ForCausalLM
    from transformers import Qwen3Config, Qwen3ForCausalLM

    config = Qwen3Config(
        vocab_size=vocab_size,
        hidden_size=128,
        intermediate_size=384,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=32,
        max_position_embeddings=512,
        tie_word_embeddings=True,
        bos_token_id=eos_id,
        eos_token_id=eos_id,
    )
    return Qwen3ForCausalLM(config)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=1200)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--context", type=int, default=128)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--vocab", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--fingerprint-only", action="store_true", help="rewrite fingerprint.json from the saved model")
    args = parser.parse_args()
    if args.fingerprint_only:
        write_fingerprint(args.out)
        return

    torch.manual_seed(args.seed)
    started = time.monotonic()
    text = training_text()
    tokenizer = train_tokenizer(text, args.vocab)
    ids = torch.tensor(tokenizer(text)["input_ids"], dtype=torch.long)
    passage_ids = torch.tensor(tokenizer(PASSAGE.read_text(encoding="utf-8"))["input_ids"], dtype=torch.long)
    print(f"corpus: {len(text)} characters -> {len(ids)} tokens; passage: {len(passage_ids)} tokens")

    model = build_model(len(tokenizer), tokenizer.eos_token_id)
    params = sum(p.numel() for p in model.parameters())
    print(f"model: {params} parameters")
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.1, betas=(0.9, 0.95))
    warmup = max(1, args.steps // 20)

    def learning_rate(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, args.steps - warmup)))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, learning_rate)
    window = args.context + 1
    losses: list[tuple[int, float, float]] = []
    model.train()
    for step in range(args.steps):
        starts = torch.randint(0, len(ids) - window, (args.batch,))
        batch = torch.stack([ids[s : s + window] for s in starts.tolist()])
        loss = model(input_ids=batch[:, :-1], labels=batch[:, :-1]).loss  # transformers shifts labels
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        if step % 100 == 0 or step == args.steps - 1:
            model.eval()
            with torch.no_grad():
                held_out = model(input_ids=passage_ids[None], labels=passage_ids[None]).loss.item()
            model.train()
            losses.append((step, round(loss.item(), 4), round(held_out, 4)))
            print(f"step {step:5d}  train loss {loss.item():.3f}  held-out passage loss {held_out:.3f}")

    model.eval()
    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(args.out)
    tokenizer.save_pretrained(args.out)
    written = sorted(p for p in args.out.iterdir() if p.is_file() and p.name != "training.json")
    record = {
        "what": "models/train_tiny_qwen3.py",
        "settings": {k: (_relative(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "parameters": params,
        "corpus": {"file": CORPUS.name, "sha256": hashlib.sha256(CORPUS.read_bytes()).hexdigest(), "tokens": len(ids)},
        "passage_tokens": len(passage_ids),
        "losses": [{"step": s, "train": t, "held_out_passage": h} for s, t, h in losses],
        "seconds": round(time.monotonic() - started, 1),
        "versions": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": __import__("transformers").__version__,
            "tokenizers": __import__("tokenizers").__version__,
            "machine": platform.machine(),
        },
        "sha256": {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in written},
    }
    (args.out / "training.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    write_fingerprint(args.out)
    print(f"wrote {args.out} in {record['seconds']} s")


def _relative(path: Path) -> str:
    """``path`` relative to the repository when it is inside it (the record must not name this machine)."""
    try:
        return str(path.resolve().relative_to(MODELS_DIR.parent))
    except ValueError:
        return str(path)


def write_fingerprint(directory: Path) -> None:
    """``fingerprint.json``: a few logits of the passage, as this machine computes them from the
    saved files. tests/judge/test_models.py compares them within the cross-machine tolerance."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(directory, local_files_only=True, dtype=torch.float32).eval()
    tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
    ids = tokenizer(PASSAGE.read_text(encoding="utf-8"), add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids])).logits[0]
    entries = []
    for position in (0, 17, 100, len(ids) - 1):
        row = logits[position]
        top = row.topk(3).indices.tolist()
        tail = int(row.argmin())
        entries += [{"position": position, "token": t, "logit": round(float(row[t]), 6)} for t in [*top, tail]]
    record = {"what": "logits of models/passage.txt (position, token, logit)", "logits": entries}
    (directory / "fingerprint.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
