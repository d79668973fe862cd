"""Runs llama-cpp-python's own OpenAI-compatible server (`python -m llama_cpp.server`), unchanged,
except that llama.cpp's extra weight buffers are off on CPUs that list AMX: this VM lists AMX without
enabling it and the AMX kernels fault (see edgehost.llm.llamacpp_engine.cpu_advertises_amx).
"""

from __future__ import annotations

import llama_cpp
from llama_cpp.server.__main__ import main

from edgehost.llm.llamacpp_engine import cpu_advertises_amx, model_params_overridden

if __name__ == "__main__":
    with model_params_overridden(llama_cpp, use_extra_bufts=not cpu_advertises_amx()):
        main()
