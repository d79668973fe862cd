"""Approval (decision 8): which tool calls run at once, which ask the user, which are refused.

The policy reads a tool's risk from its annotations (readOnlyHint, destructiveHint, openWorldHint)
and from the words of its name; annotations from an untrusted server never lower the risk below
what the name says. User rules (the config's `approval` list) and the user's earlier grants come
first. Asking is an injected async `Approver`: the GUI shows a dialog, the CLI asks on the terminal
(cli/terminal_approval.py) or applies --yes / --yes-all (`auto_approver`). Timeout, cancel and shutdown mean
deny (`with_timeout`, `PendingApprovals`).

Nothing here reads tool results or model text: only the user, the user's rules and the policy's
defaults can approve a call.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import Any, Literal, Protocol

from edgehost.agent._bm25 import words as name_words
from edgehost.agent.tools import ToolSpec
from edgehost.errors import ConfigError
from edgehost.settings import DEFAULT_APPROVAL_TIMEOUT_S

__all__ = [
    "ApprovalDecision",
    "ApprovalPolicy",
    "ApprovalRequest",
    "ApprovalRule",
    "ApprovalRuleStore",
    "Approver",
    "MemoryRuleStore",
    "PendingApprovals",
    "PolicyVerdict",
    "auto_approver",
    "name_risk",
    "parse_rules",
    "saved_grants",
    "tool_risk",
    "with_timeout",
]

Risk = Literal["safe", "caution", "destructive"]
Scope = Literal["once", "conversation", "always"]
DecidedBy = Literal["user", "web", "policy", "rule", "timeout", "cancel", "shutdown"]
# Who of those is a person: the window's or the terminal's user, and the web page's.
PEOPLE: frozenset[str] = frozenset({"user", "web"})
RuleAction = Literal["allow", "ask", "deny"]
ConversationId = int | str

APPROVER_CLEANUP_S = 1.0  # a cancelled approver only closes a dialog; more than this means it ignores cancel
RISK_ORDER: dict[Risk, int] = {"safe": 0, "caution": 1, "destructive": 2}
_RULE_ACTIONS = ("allow", "ask", "deny")
_RULE_KEYS = frozenset({"server", "tool", "action", "comment"})

# Words of a tool name (split on _, -, __ and camelCase) that say what a call can do.
# fmt: off
DESTRUCTIVE_WORDS = frozenset({
    "delete", "del", "remove", "rm", "rmdir", "unlink", "drop", "truncate", "purge", "erase", "wipe",
    "destroy", "kill", "terminate", "reset", "overwrite", "revoke", "uninstall", "shutdown", "reboot",
    "exec", "execute", "run", "shell", "eval", "sudo", "format",
})
MUTATING_WORDS = frozenset({
    "write", "create", "update", "edit", "modify", "move", "mv", "rename", "copy", "cp", "send", "post",
    "put", "patch", "set", "add", "insert", "append", "replace", "upload", "push", "commit", "merge",
    "checkout", "install", "start", "stop", "restart", "toggle", "trigger", "publish", "email", "mail",
    "transfer", "pay", "order", "book", "submit", "save", "apply", "change", "enable", "disable", "grant",
    "invite", "share", "deploy", "spawn", "launch", "click", "type", "fill", "navigate",
})
# fmt: on
_NAME_RISKS: tuple[tuple[frozenset[str], Risk], ...] = (
    (DESTRUCTIVE_WORDS, "destructive"),
    (MUTATING_WORDS, "caution"),
)


@dataclass(frozen=True)
class ApprovalRequest:
    id: str
    conversation_id: ConversationId | None
    server: str
    tool: str  # namespaced server__tool
    arguments: Mapping[str, Any]
    risk: Risk
    reasons: tuple[str, ...]
    allowed_scopes: tuple[Scope, ...]
    description: str = ""
    tool_name: str = ""  # the name the server knows the tool by (rules match it)
    # Where the question behind the call was asked, when another face than the one answering may see it:
    # "the web page (192.168.1.20)". The window says so, as someone else may be asking through it.
    asked_from: str = ""
    # How long this request waits for an answer before it is denied (with_timeout sets it): a face's
    # countdown starts from it, whatever the setting was when the face opened.
    timeout_s: float | None = None


@dataclass(frozen=True)
class ApprovalDecision:
    allow: bool
    scope: Scope | None = None
    arguments: Mapping[str, Any] | None = None  # the user's edited arguments, else None
    reason: str | None = None  # a denial's reason goes back to the model
    decided_by: DecidedBy = "user"


Approver = Callable[[ApprovalRequest], Awaitable[ApprovalDecision]]


@dataclass(frozen=True)
class ApprovalRule:
    server: str  # glob on the server name
    tool: str  # glob on the tool's own name or on its namespaced name
    action: RuleAction
    origin: str = "config"  # "approval[2]" for a config rule, "saved" for a remembered grant

    def matches(self, tool: ToolSpec) -> bool:
        return fnmatchcase(tool.server, self.server) and (
            fnmatchcase(tool.tool_name, self.tool) or fnmatchcase(tool.name, self.tool)
        )

    def as_dict(self) -> dict[str, str]:
        return {"server": self.server, "tool": self.tool, "action": self.action}


@dataclass(frozen=True)
class PolicyVerdict:
    action: RuleAction
    risk: Risk
    request: ApprovalRequest | None = None  # set when action == "ask"
    reason: str | None = None
    decided_by: DecidedBy = "policy"


class ApprovalRuleStore(Protocol):
    """Where "always" grants persist (the history database implements it)."""

    def load(self) -> Sequence[Mapping[str, Any]]: ...

    def save(self, rule: Mapping[str, Any]) -> None: ...

    def delete(self, rule: Mapping[str, Any]) -> bool: ...


def saved_grants(store: ApprovalRuleStore) -> list[ApprovalRule]:
    """The "always" grants kept in ``store`` (its "allow" rules), oldest first."""
    return [
        ApprovalRule(str(r["server"]), str(r["tool"]), "allow", origin="saved")
        for r in store.load()
        if r.get("action") == "allow"
    ]


class MemoryRuleStore:
    """An ApprovalRuleStore that forgets on exit (tests, --no-history)."""

    def __init__(self, rules: Sequence[Mapping[str, Any]] = ()) -> None:
        self.rules: list[dict[str, Any]] = [dict(r) for r in rules]

    def load(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.rules]

    def save(self, rule: Mapping[str, Any]) -> None:
        self.delete(rule)
        self.rules.append(dict(rule))

    def delete(self, rule: Mapping[str, Any]) -> bool:
        kept = [r for r in self.rules if (r["server"], r["tool"]) != (rule["server"], rule["tool"])]
        deleted, self.rules = len(kept) < len(self.rules), kept
        return deleted


def parse_rules(raw: Any, source: str = "approval") -> list[ApprovalRule]:
    """Validate the config's approval list: `[{"server": glob, "tool": glob, "action": "allow"|"ask"|"deny"}]`.

    `server` and `tool` default to "*". Raises ConfigError naming the rule (`approval[2]`) and the field.
    """
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ConfigError(f"{source} must be a list of rules", field=source)
    rules = []
    for index, item in enumerate(raw):
        where = f"{source}[{index}]"
        if not isinstance(item, Mapping):
            raise ConfigError(f"{where} must be an object with server, tool and action", field=where)
        unknown = sorted(set(item) - _RULE_KEYS)
        if unknown:
            raise ConfigError(
                f"{where} has unknown keys {', '.join(unknown)} (known: server, tool, action)", field=where
            )
        action = item.get("action")
        if action not in _RULE_ACTIONS:
            raise ConfigError(
                f"{where}.action must be one of allow, ask, deny, got {action!r}", field=f"{where}.action"
            )
        globs = {}
        for key in ("server", "tool"):
            value = item.get(key, "*")
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(
                    f"{where}.{key} must be a non-empty glob string, got {value!r}", field=f"{where}.{key}"
                )
            globs[key] = value.strip()
        rules.append(ApprovalRule(globs["server"], globs["tool"], action, origin=where))
    return rules


def name_risk(tool_name: str) -> tuple[Risk | None, str | None]:
    """What the words of a name say: ("destructive", 'the name says "delete"'), or (None, None)."""
    words = name_words(tool_name)
    for vocabulary, risk in _NAME_RISKS:
        hit = next((w for w in words if w in vocabulary), None)
        if hit:
            return risk, f'the name says "{hit}"'
    return None, None


def _annotation_risk(tool: ToolSpec) -> tuple[Risk | None, list[str]]:
    if not tool.annotations:
        return None, ["the server does not say what this tool does (no annotations)"]
    read_only = tool.hint("readOnlyHint")
    open_world = tool.hint("openWorldHint")
    if read_only:
        risk: Risk = "safe"
        reasons = ["the server marks it read-only"]
    # MCP: destructiveHint defaults to true for a tool that is not read-only.
    elif tool.hint("destructiveHint") is False:
        risk, reasons = "caution", ["the server says it changes things (not read-only)"]
    else:
        risk, reasons = "destructive", ["the server says it may destroy or overwrite data (destructiveHint)"]
    if open_world and risk == "safe":
        risk = "caution"
        reasons.append("it reaches outside this machine (openWorldHint)")
    return risk, reasons


def _max_risk(*risks: Risk) -> Risk:
    return max(risks, key=lambda r: RISK_ORDER[r])


def tool_risk(tool: ToolSpec) -> tuple[Risk, tuple[str, ...]]:
    """A tool's risk and the reasons for it, from annotations and name (see the module docstring)."""
    by_name, name_reason = name_risk(tool.tool_name)
    by_annotations, reasons = _annotation_risk(tool)
    if tool.trusted_server and by_annotations is not None:
        return by_annotations, tuple(reasons)
    risk = _max_risk(by_annotations or "caution", by_name or "safe")
    if name_reason and by_name == risk:
        reasons.append(name_reason)
    if (
        not tool.trusted_server
        and by_annotations is not None
        and by_name
        and RISK_ORDER[by_name] > RISK_ORDER[by_annotations]
    ):
        reasons.append("the server is not trusted, so its annotations cannot lower the risk")
    return risk, tuple(reasons)


class ApprovalPolicy:
    """Decides allow / ask / deny for a call and remembers the user's grants.

    Order: a user rule that denies; the user's grants (this conversation, always); other user rules
    (first match); then the defaults: read-only tools of a trusted server run, the rest ask.
    """

    def __init__(self, rules: Sequence[ApprovalRule] = (), store: ApprovalRuleStore | None = None) -> None:
        self._rules = list(rules)
        self._store = store or MemoryRuleStore()
        self._conversation_grants: dict[ConversationId, set[str]] = {}

    @classmethod
    def from_config(cls, raw_rules: Any, store: ApprovalRuleStore | None = None) -> ApprovalPolicy:
        """Raises ConfigError for an invalid rule (see parse_rules)."""
        return cls(parse_rules(raw_rules), store)

    def set_rules(self, rules: Sequence[ApprovalRule]) -> None:
        """Replace the user's rules; grants already given (conversation, always) are kept."""
        self._rules = list(rules)

    def _user_rule(self, tool: ToolSpec) -> ApprovalRule | None:
        return next((r for r in self._rules if r.matches(tool)), None)

    def lets_host_look_up(self, tool: ToolSpec) -> bool:
        """Whether EdgeHost itself may call ``tool``, with no arguments, to read a question (what a
        server keeps, agent/kept_names.py): a safe tool, by its annotations and its name, that no rule
        of the user's denies or asks for. No card, no approval: the call reads what the user keeps."""
        rule = self._user_rule(tool)
        return tool_risk(tool)[0] == "safe" and (rule is None or rule.action == "allow")

    def evaluate(
        self, tool: ToolSpec, arguments: Mapping[str, Any], conversation_id: ConversationId | None
    ) -> PolicyVerdict:
        risk, reasons = tool_risk(tool)
        rule = self._user_rule(tool)
        if rule is not None and rule.action == "deny":
            return PolicyVerdict(
                "deny", risk, reason=f"refused by the user's rule {rule.origin}", decided_by="rule"
            )
        if conversation_id is not None and tool.name in self._conversation_grants.get(conversation_id, ()):
            return PolicyVerdict("allow", risk, reason="allowed for this conversation", decided_by="user")
        if self.granted(tool):
            return PolicyVerdict("allow", risk, reason="always allowed by the user", decided_by="user")
        if rule is not None and rule.action == "allow":
            return PolicyVerdict(
                "allow", risk, reason=f"allowed by the user's rule {rule.origin}", decided_by="rule"
            )
        if rule is None and risk == "safe" and tool.trusted_server:
            return PolicyVerdict(
                "allow", risk, reason="read-only tool of a trusted server", decided_by="policy"
            )
        if rule is not None:
            reasons = (*reasons, f"the user's rule {rule.origin} asks")
        elif risk == "safe":
            reasons = (*reasons, "the server is not trusted")
        scopes: tuple[Scope, ...] = ("once", "conversation")
        if risk != "destructive" or rule is not None:
            scopes = (*scopes, "always")
        request = ApprovalRequest(
            id=uuid.uuid4().hex,
            conversation_id=conversation_id,
            server=tool.server,
            tool=tool.name,
            arguments=dict(arguments),
            risk=risk,
            reasons=reasons,
            allowed_scopes=scopes,
            description=tool.description,
            tool_name=tool.tool_name,
        )
        return PolicyVerdict("ask", risk, request=request, decided_by="policy")

    def remember(self, request: ApprovalRequest, decision: ApprovalDecision) -> None:
        """Keep a user's "conversation" or "always" grant. An "always" the request did not offer
        (a destructive tool without a user rule) is kept for the conversation only."""
        if not decision.allow or decision.decided_by != "user" or decision.scope in (None, "once"):
            return
        if decision.scope == "always" and "always" in request.allowed_scopes:
            rule = ApprovalRule(request.server, request.tool_name or request.tool, "allow", origin="saved")
            self._store.save(rule.as_dict())
        elif request.conversation_id is not None:
            self._conversation_grants.setdefault(request.conversation_id, set()).add(request.tool)

    def forget_conversation(self, conversation_id: ConversationId) -> None:
        self._conversation_grants.pop(conversation_id, None)

    def always_allowed(self) -> list[ApprovalRule]:
        """The user's "always" grants, oldest first: read from the store each time, so one taken back
        elsewhere (`edgehost approvals forget`) counts at once."""
        return saved_grants(self._store)

    def granted(self, tool: ToolSpec) -> bool:
        """Whether the user answered "Always" for ``tool`` (a grant outranks an "ask" rule)."""
        return any(r.matches(tool) for r in self.always_allowed())

    def forget_grants(self, tool: ToolSpec) -> int:
        """Take back the user's grants for ``tool`` ("always", and in every open conversation): a rule
        the user sets for it later is then what counts. Returns how many "always" grants there were."""
        matching = [r for r in self.always_allowed() if r.matches(tool)]
        for rule in matching:
            self._store.delete(rule.as_dict())
        for granted in self._conversation_grants.values():
            granted.discard(tool.name)
        return len(matching)


def _deny(reason: str, decided_by: DecidedBy) -> ApprovalDecision:
    return ApprovalDecision(allow=False, reason=reason, decided_by=decided_by)


def auto_approver(yes: bool, yes_all: bool) -> Approver:
    """For scripts: --yes approves what is not destructive, --yes-all everything, neither denies."""

    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        if yes_all or (yes and request.risk != "destructive"):
            return ApprovalDecision(allow=True, scope="once", decided_by="policy")
        if yes:
            return _deny(f"{request.tool} is destructive: it needs --yes-all or an approval rule", "policy")
        return _deny(
            f"{request.tool} needs approval: run with --yes / --yes-all or add an approval rule", "policy"
        )

    return approve


def with_timeout(approver: Approver, seconds: float = DEFAULT_APPROVAL_TIMEOUT_S) -> Approver:
    """Deny when no answer comes within `seconds` (decided_by "timeout"), when the approver's own wait
    is cancelled (a closed dialog: "cancel") or when it fails. Cancelling the caller still cancels.
    The approver gets the request with its ``timeout_s`` set (the shorter one, when it had one)."""

    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        waits = seconds if request.timeout_s is None else min(seconds, request.timeout_s)
        task = asyncio.ensure_future(approver(replace(request, timeout_s=waits)))
        try:
            done, _ = await asyncio.wait({task}, timeout=seconds)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if not done:
            task.cancel()
            # Let the approver close its dialog / forget its request before the caller moves on.
            await asyncio.wait({task}, timeout=APPROVER_CLEANUP_S)
            return _deny(f"no answer within {seconds:g} s", "timeout")
        if task.cancelled():
            return _deny("the approval was cancelled", "cancel")
        error = task.exception()
        if error is not None:
            return _deny(f"the approval could not be asked: {error}", "cancel")
        return task.result()

    return approve


class PendingApprovals:
    """Open approval requests waiting for an answer from elsewhere (a dialog, a host command).

    `approver` is the Approver to inject; `on_request` is told of each new request (the GUI opens
    its dialog there); `resolve` answers one request, `cancel` denies it (decided_by "cancel"),
    `shutdown` denies all of them (decided_by "shutdown").
    """

    def __init__(self, on_request: Callable[[ApprovalRequest], None] | None = None) -> None:
        self._on_request = on_request
        self._futures: dict[str, asyncio.Future[ApprovalDecision]] = {}
        self._requests: dict[str, ApprovalRequest] = {}
        self._opened: dict[str, float] = {}  # request id -> when it was asked (time.monotonic)

    @property
    def open_requests(self) -> list[ApprovalRequest]:
        return list(self._requests.values())

    def waited_s(self, request_id: str) -> float:
        """How long an open request has waited for its answer (0 for one not open)."""
        opened = self._opened.get(request_id)
        return time.monotonic() - opened if opened is not None else 0.0

    async def approver(self, request: ApprovalRequest) -> ApprovalDecision:
        future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        self._futures[request.id] = future
        self._requests[request.id] = request
        self._opened[request.id] = time.monotonic()
        if self._on_request is not None:
            self._on_request(request)
        try:
            return await future
        finally:
            self._futures.pop(request.id, None)
            self._requests.pop(request.id, None)
            self._opened.pop(request.id, None)

    def resolve(self, request_id: str, decision: ApprovalDecision) -> bool:
        """Answer a request; False when it is no longer open (answered, timed out)."""
        future = self._futures.get(request_id)
        if future is None or future.done():
            return False
        future.set_result(decision)
        return True

    def cancel(self, request_id: str, reason: str = "the user closed the approval") -> bool:
        return self.resolve(request_id, _deny(reason, "cancel"))

    def shutdown(self) -> None:
        for request_id in list(self._futures):
            self.resolve(request_id, _deny("EdgeHost is shutting down", "shutdown"))
