"""Decode speed through EdgeHost's worker process and backend vs. llama-cpp-python called directly.

Same run, model (the embedded default), prompt, threads and greedy sampling; the baseline is
llama-cpp-python's token loop (Llama.generate) in this process. The two are measured in
alternating rounds because the machine is shared. Speed is tokens after the first one divided by
the time from the first to the last token, as the caller sees them.

Prints ``RESULT decode_overhead <ratio>`` (worker tokens/s / direct tokens/s; target >= 0.95).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time

# Same OpenMP wait policy as our worker (edgehost.llm.worker_backend.worker_environment), so both
# sides of the ratio run llama.cpp alike; it is read when llama.cpp loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import llama_cpp  # noqa: E402
from llama_cpp.llama_chat_format import Jinja2ChatFormatter  # noqa: E402

from edgehost.llm.base import ChatMessage, GenerationFinished, GenerationRequest, TokenText
from edgehost.llm.default_model import default_model_path
from edgehost.llm.worker_backend import WorkerBackend

ROUNDS = 8
TOKENS = 96
# One thread on both sides: on a shared, overloaded machine two OpenMP threads wait on each other at
# every barrier and the speed swings tenfold between runs; the overhead being measured is per token.
THREADS = 1
N_CTX = 2048
MESSAGES = [ChatMessage("user", "Write a long story about a dragon who learns to cook.")]


async def worker_speed(backend: WorkerBackend) -> tuple[float, int]:
    await backend.reset()
    request = GenerationRequest(MESSAGES, max_tokens=TOKENS, temperature=0.0)
    first = last = 0.0
    tokens = 0
    async for event in backend.generate(request):
        if isinstance(event, TokenText):
            last = time.perf_counter()
            first = first or last
        elif isinstance(event, GenerationFinished):
            tokens = event.perf.generated_tokens
    return (tokens - 1) / (last - first), tokens


def direct_speed(llama: llama_cpp.Llama, prompt: str) -> tuple[float, int]:
    """llama-cpp-python's own lowest-level loop: Llama.generate, detokenizing each token."""
    llama.reset()
    first = last = 0.0
    tokens = 0
    prompt_tokens = llama.tokenize(prompt.encode(), add_bos=False, special=True)
    for token in llama.generate(prompt_tokens, temp=0.0):
        if llama_cpp.llama_vocab_is_eog(llama._model.vocab, token):
            break
        llama.detokenize([token])
        last = time.perf_counter()
        first = first or last
        tokens += 1
        if tokens >= TOKENS:
            break
    return (tokens - 1) / (last - first), tokens


async def main() -> None:
    path = default_model_path()
    backend = WorkerBackend("llamacpp", {"model_path": str(path), "n_ctx": N_CTX, "threads": THREADS})
    await backend.load()
    llama = llama_cpp.Llama(
        model_path=str(path), n_ctx=N_CTX, n_threads=THREADS, n_threads_batch=THREADS, verbose=False
    )
    # The prompt our engine renders: the model's own chat template.
    formatter = Jinja2ChatFormatter(
        template=llama.metadata["tokenizer.chat_template"], eos_token="<|im_end|>", bos_token="<|im_start|>"
    )
    prompt_text = formatter(messages=[{"role": "user", "content": MESSAGES[0].content}]).prompt
    ours, theirs = [], []
    try:
        for round_ in range(ROUNDS):
            # Alternate which side goes first, so a slow spell of the machine hits both alike.
            if round_ % 2:
                speed, n_theirs = direct_speed(llama, prompt_text)
                theirs.append(speed)
            speed, n_ours = await worker_speed(backend)
            ours.append(speed)
            if not round_ % 2:
                speed, n_theirs = direct_speed(llama, prompt_text)
                theirs.append(speed)
    finally:
        await backend.close()
        llama.close()
    print(
        f"worker {statistics.median(ours):.1f} tok/s ({n_ours} tokens), "
        f"direct {statistics.median(theirs):.1f} tok/s ({n_theirs} tokens)"
    )
    print(f"RESULT decode_overhead {statistics.median(ours) / statistics.median(theirs):.3f}")


if __name__ == "__main__":
    asyncio.run(main())
