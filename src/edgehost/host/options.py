"""What a caller can inject into the Host instead of what the settings would build (tests, CLI flags).

A module of its own so that the Host's mixins (host/model_commands.py) and the faces can name it without
importing host/host.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from edgehost.agent.approval import Approver
from edgehost.agent.config import AgentConfig
from edgehost.llm.base import Backend
from edgehost.mcp.auth import ServerAuth
from edgehost.mcp.client_features import ClientFeatures, InProcessFnT
from edgehost.mcp.config import ServersConfig
from edgehost.servers.in_process import builtin_in_process

__all__ = ["HostOptions"]


@dataclass
class HostOptions:
    """What a caller can inject instead of what settings would build (tests, CLI flags)."""

    backend: Backend | None = None
    backend_name: str | None = None  # auto | llamacpp | rkllm | openai
    model: str | None = None
    rkllm_lib: str | None = None
    approver: Approver | None = None  # None = ApprovalRequested events answered by resolve_approval
    features: ClientFeatures | None = None  # elicitation / sampling handlers (GUI dialogs)
    servers: ServersConfig | None = None
    only_servers: Sequence[str] | None = None  # connect just these (CLI commands)
    auto_restart: bool = True  # restart a server that dies (a one-shot command shows it failed instead)
    with_servers: bool = True
    with_model: bool = True
    agent: AgentConfig | None = None  # None: from the settings
    hub_endpoint: str | None = None  # where models are downloaded from; None: HF_ENDPOINT or huggingface.co
    auth: ServerAuth | None = None  # OAuth of remote servers; None: the OS keyring / a 0600 file, no browser
    # Prefill a new conversation's prompt ahead (agent/prompt_warm_up.py); off: bench/first_question.py's baseline.
    warm_prompt: bool = True
    # The built-in servers run on threads of this process (servers/in_process.py, issue 35: a process
    # each cost ~70 MB); None starts them as the processes their entries name (the tests of that path).
    servers_in_process: InProcessFnT | None = builtin_in_process
