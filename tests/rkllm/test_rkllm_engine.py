"""The RKLLM engine against stub runtimes built from C for each ABI (1.2.x and 1.3.0)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rkllm_stub_runtime import StubProbe, build_stub

from edgehost.llm.base import BackendError, ChatMessage
from edgehost.llm.rkllm._library import abi_for_version, find_library, inspect_library, read_runtime_version
from edgehost.llm.rkllm.engine import RkllmEngine, create_engine

ConfigFnT = Callable[..., dict[str, Any]]


def loaded(config: dict[str, Any]) -> RkllmEngine:
    engine = create_engine(config)
    engine.load()
    return engine


def run(engine: RkllmEngine, prompt: str, **kwargs: Any) -> list[str]:
    options: dict[str, Any] = {"max_tokens": 0, "stop": (), "grammar": None, "temperature": None}
    options.update(kwargs)
    return list(engine.generate(prompt, **options))


def test_every_init_field_reaches_the_library_at_its_offset(
    engine_config: ConfigFnT, probe: StubProbe, abi: str, model_file: Path
) -> None:
    engine = loaded(
        engine_config(n_ctx=2048, n_keep=300, top_k=17, top_p=0.75, temperature=0.3, repeat_penalty=1.25)
    )
    try:
        got = probe.init_fields()
        assert got["sizeof_param"] == ("184" if abi == "1.3" else "208")
        assert got["model_path"] == str(model_file)
        assert got["max_context_len"] == "2048"
        assert got["max_new_tokens"] == "2048"
        assert got["n_keep"] == "300"
        assert got["top_k"] == "17"
        assert got["top_p"] == "0.7500"
        assert got["temperature"] == "0.3000"
        assert got["repeat_penalty"] == "1.2500"
        assert got["enabled_cpus_num"] == "4"
        assert got["enabled_cpus_mask"] == "0xF0"
        # Fields we do not touch keep the runtime's defaults through the by-value round trip.
        assert got["mirostat_tau"] == "5.0000"
        assert got["mirostat_eta"] == "0.1000"
        assert got["n_batch"] == "1"
        assert got["skip_special_token"] == "1"
        assert got["is_async"] == "0"
        assert got["callback_set"] == "1"
        if abi == "1.3":
            assert got["ignore_eos_token"] == "0"
            assert got["tokenizer_callback_null"] == "1"
        else:
            assert (got["img_start_null"], got["img_end_null"], got["img_content_null"]) == ("1", "1", "1")
        # The built-in template is switched off: we send prompts rendered by our own template.
        assert "chat_template system=[] prefix=[] postfix=[]" in probe.templates()
    finally:
        engine.close()


def test_every_run_field_reaches_the_library(engine_config: ConfigFnT, probe: StubProbe, abi: str) -> None:
    engine = loaded(engine_config())
    try:
        run(engine, "REPLY:ok\n", max_tokens=7, temperature=0.5)
        got = probe.run_fields()
        assert (got["role"], got["input_type"], got["mode"], got["keep_history"]) == ("user", "0", "0", "1")
        assert (got["enable_thinking"], got["lora_null"], got["prompt_cache_null"]) == ("0", "1", "1")
        if abi == "1.3":
            assert got["max_new_tokens"] == "7"
            assert got["sampling_null"] == "0"
            assert got["s_temperature"] == "0.5000"
        assert probe.last_prompt() == "REPLY:ok\n"
    finally:
        engine.close()


def test_tokens_stream_with_utf8_assembled_across_callbacks(engine_config: ConfigFnT) -> None:
    engine = loaded(engine_config())
    try:
        pieces = run(engine, "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n")
        assert "".join(pieces) == "Hello wörld €!"
        assert len(pieces) >= 5  # one piece per token, not one block at the end
        assert not any("\ufffd" in p for p in pieces)
        perf = engine.last_perf()
        assert (perf.prefill_ms, perf.decode_ms, perf.peak_memory_mb) == (12.5, 40.0, 321.5)
        assert perf.generated_tokens == 7
        assert perf.prompt_tokens > 0
    finally:
        engine.close()


def test_max_tokens_stops_the_reply(engine_config: ConfigFnT) -> None:
    engine = loaded(engine_config())
    try:
        assert "".join(run(engine, "hi", max_tokens=2)) == "Hello w"
    finally:
        engine.close()


def test_abort_from_another_thread_ends_the_stream(engine_config: ConfigFnT, probe: StubProbe) -> None:
    engine = loaded(engine_config())
    try:
        stream = engine.generate("LONG", max_tokens=0, stop=(), grammar=None, temperature=None)
        pieces = [next(stream)]
        aborter = threading.Thread(target=engine.abort)
        aborter.start()
        aborter.join(timeout=10)
        pieces.extend(stream)
        assert 0 < len(pieces) < 100000
        # After an interrupted run the KV tail is unknown: the next prompt is sent whole.
        clears = probe.clear_count()
        assert "".join(run(engine, "REPLY:fine\n")) == "fine"
        assert probe.clear_count() == clears + 1
    finally:
        engine.close()


def test_closing_the_stream_early_stops_the_runtime(engine_config: ConfigFnT, probe: StubProbe) -> None:
    engine = loaded(engine_config())
    try:
        stream = engine.generate("LONG", max_tokens=0, stop=(), grammar=None, temperature=None)
        next(stream)
        stream.close()  # what the worker does when a stop sequence matched
        runs = probe.run_count()
        assert "".join(run(engine, "REPLY:next\n")) == "next"
        assert probe.run_count() == runs + 1
    finally:
        engine.close()


def test_keep_history_sends_only_the_new_part_of_the_conversation(
    engine_config: ConfigFnT, probe: StubProbe
) -> None:
    engine = loaded(engine_config())
    try:
        history = [ChatMessage("system", "Be brief."), ChatMessage("user", "Say REPLY:one\n")]
        first = engine.format_chat(history)
        reply = "".join(run(engine, first))
        assert reply == "one"
        history += [ChatMessage("assistant", reply), ChatMessage("user", "Now REPLY:two\n")]
        second = engine.format_chat(history)
        assert "".join(run(engine, second)) == "two"
        assert second.startswith(first + reply)
        assert probe.last_prompt() == second[len(first + reply) :]
        assert probe.run_fields()["keep_history"] == "1"
        assert probe.kv_text() == second + "two"
        assert engine.last_perf().cached_tokens > 0
    finally:
        engine.close()


def test_a_prompt_that_does_not_extend_the_last_one_clears_the_cache(
    engine_config: ConfigFnT, probe: StubProbe
) -> None:
    engine = loaded(engine_config())
    try:
        run(engine, "first REPLY:a\n")
        clears = probe.clear_count()
        run(engine, "other REPLY:b\n")
        assert probe.clear_count() == clears + 1
        assert probe.last_prompt() == "other REPLY:b\n"
        assert probe.kv_text() == "other REPLY:b\nb"
        engine.reset()
        assert probe.clear_count() == clears + 2
        run(engine, "fresh REPLY:c\n")
        assert probe.kv_text() == "fresh REPLY:c\nc"
    finally:
        engine.close()


def test_context_is_capped_at_the_model_limit(
    engine_config: ConfigFnT, probe: StubProbe, model_file: Path
) -> None:
    engine = loaded(engine_config(n_ctx=16384))
    try:
        assert probe.init_fields()["max_context_len"] == "4096"
        assert engine.capabilities.max_context == 4096
    finally:
        engine.close()
    model_file.with_name(model_file.name + ".template.json").write_text('{"max_context_len": 1024}')
    engine = loaded(engine_config(n_ctx=4096))
    try:
        assert probe.init_fields()["max_context_len"] == "1024"
    finally:
        engine.close()


def test_qwen_models_get_the_native_hermes_tools_section(engine_config: ConfigFnT) -> None:
    engine = loaded(engine_config())
    try:
        assert engine.capabilities.supports_native_tools
        assert engine.capabilities.native_tool_dialect == "hermes"
        tool = {"type": "function", "function": {"name": "board__temps", "parameters": {"type": "object"}}}
        prompt = engine.format_chat([ChatMessage("user", "How hot?")], tools=[tool])
        assert prompt.startswith("<|im_start|>system\n# Tools")
        assert '"name": "board__temps"' in prompt
        assert prompt.endswith("<|im_start|>assistant\n")
    finally:
        engine.close()


def test_a_missing_model_file_is_a_clear_error(engine_config: ConfigFnT, tmp_path: Path) -> None:
    engine = create_engine(engine_config(model_path=str(tmp_path / "gone.rkllm")))
    with pytest.raises(BackendError, match="does not exist"):
        engine.load()


def test_an_unsupported_runtime_version_is_refused_with_a_clear_message(
    tmp_path: Path, model_file: Path
) -> None:
    library = build_stub(tmp_path / "old", "1.2", "1.1.4")
    assert read_runtime_version(library) == "1.1.4"
    with pytest.raises(
        BackendError, match=r"RKLLM runtime 1\.1\.4 is not supported \(supported: 1\.2\.1, .*1\.3\.0\)"
    ):
        inspect_library(library)
    engine = create_engine({"model_path": str(model_file), "n_ctx": 1024, "rkllm_lib": str(library)})
    with pytest.raises(BackendError, match="not supported"):
        engine.load()
    # The rkllm_abi setting is the escape hatch for a library whose version cannot be told.
    assert inspect_library(library, abi_override="1.2").abi == "1.2"


def test_version_and_abi_are_read_from_the_library_file(stub_libraries: dict[str, Path]) -> None:
    assert inspect_library(stub_libraries["1.2"]).abi == "1.2"
    assert inspect_library(stub_libraries["1.3"]).version == "1.3.0"
    assert abi_for_version("1.2.3") == "1.2"
    with pytest.raises(BackendError, match="rkllm_abi"):
        abi_for_version(None)


def test_library_lookup_order_and_errors(stub_libraries: dict[str, Path], tmp_path: Path) -> None:
    lib12, lib13 = stub_libraries["1.2"], stub_libraries["1.3"]
    assert find_library(lib12, str(lib13), {"EDGEHOST_RKLLM_LIB": str(lib13)}) == lib12
    assert find_library(None, str(lib12), {"EDGEHOST_RKLLM_LIB": str(lib13)}) == lib13
    assert find_library(None, str(lib12), {}) == lib12
    with pytest.raises(BackendError, match="does not exist"):
        find_library(tmp_path / "typo.so", None, {})


# A system prompt and tools section as our templates render it, far past the caching threshold.
LONG_SYSTEM = "<|im_start|>system\n" + "Answer briefly and call a tool when one fits. " * 30 + "<|im_end|>\n"


def conversation_start(question: str) -> str:
    return f"{LONG_SYSTEM}<|im_start|>user\nREPLY:ok {question}\n<|im_end|>\n<|im_start|>assistant\n"


def test_a_new_conversation_and_a_restart_prefill_only_what_the_saved_prompt_cache_does_not_cover(
    engine_config: ConfigFnT, probe: StubProbe, tmp_path: Path
) -> None:
    folder = tmp_path / "prompts"
    engine = loaded(engine_config(prompt_cache_dir=str(folder)))
    try:
        assert run(engine, conversation_start("one")) == ["ok ", "one"]
        cold = probe.run_fields()
        assert (cold["prompt_cache_null"], cold["cache_reused_chars"]) == ("0", "0")  # saved, none reused
        assert len(list(folder.glob("*.rkllm-cache"))) == 1
        cold_prefill = engine.last_perf().prompt_tokens
        run(engine, conversation_start("two"))  # a new conversation: the context starts empty again
        warm = probe.run_fields()
        assert warm["prompt_cache_null"] == "1"  # loaded, not saved again
        assert int(warm["cache_reused_chars"]) >= len(LONG_SYSTEM)
        assert engine.last_perf().prompt_tokens * 4 < cold_prefill
        assert engine.last_perf().cached_tokens > 0
    finally:
        engine.close()
    restarted = loaded(engine_config(prompt_cache_dir=str(folder)))
    try:
        run(restarted, conversation_start("three"))
        assert int(probe.run_fields()["cache_reused_chars"]) >= len(LONG_SYSTEM)
    finally:
        restarted.close()


def test_without_a_cache_folder_no_prompt_cache_is_asked_for(
    engine_config: ConfigFnT, probe: StubProbe
) -> None:
    engine = loaded(engine_config())
    try:
        run(engine, conversation_start("one"))
        assert probe.run_fields()["prompt_cache_null"] == "1"
    finally:
        engine.close()
