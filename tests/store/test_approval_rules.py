"""Approval rules kept in the store, in the ApprovalRuleStore shape (load / save / delete)."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgehost.store import RecordNotFoundError, Store


def test_saved_rules_load_back_in_the_order_they_were_saved(store: Store) -> None:
    store.approval_rules.save({"server": "files", "tool": "files__read*", "action": "allow"})
    store.approval_rules.save({"server": "*", "tool": "*delete*", "action": "deny"})
    assert store.approval_rules.load() == [
        {"server": "files", "tool": "files__read*", "action": "allow"},
        {"server": "*", "tool": "*delete*", "action": "deny"},
    ]


def test_saving_the_same_globs_again_replaces_the_action(store: Store) -> None:
    store.approval_rules.save({"server": "files", "tool": "*", "action": "ask"})
    store.approval_rules.save({"server": "files", "tool": "*", "action": "allow"})
    assert store.approval_rules.load() == [{"server": "files", "tool": "*", "action": "allow"}]


def test_rules_survive_reopening_the_database(db_path: Path) -> None:
    with Store.open(db_path) as store:
        store.approval_rules.save({"server": "memory", "tool": "*", "action": "allow"})
    with Store.open(db_path) as store:
        assert store.approval_rules.load() == [{"server": "memory", "tool": "*", "action": "allow"}]


def test_a_conversation_rule_applies_only_to_that_conversation(store: Store) -> None:
    mine = store.create_conversation("mine")
    other = store.create_conversation("other")
    store.approval_rules.save({"server": "*", "tool": "*", "action": "ask"})
    store.approval_rules.save(
        {"server": "files", "tool": "files__write", "action": "allow"}, conversation_id=mine
    )
    assert store.approval_rules.load(mine) == [
        {"server": "*", "tool": "*", "action": "ask"},
        {"server": "files", "tool": "files__write", "action": "allow"},
    ]
    assert store.approval_rules.load(other) == [{"server": "*", "tool": "*", "action": "ask"}]
    assert store.approval_rules.load() == [{"server": "*", "tool": "*", "action": "ask"}]


def test_delete_removes_the_rule_with_those_globs(store: Store) -> None:
    store.approval_rules.save({"server": "files", "tool": "*", "action": "deny"})
    assert store.approval_rules.delete({"server": "files", "tool": "*"}) is True
    assert store.approval_rules.delete({"server": "files", "tool": "*"}) is False
    assert store.approval_rules.load() == []


@pytest.mark.parametrize(
    "rule",
    [
        {"server": "files", "tool": "*", "action": "maybe"},
        {"server": "", "tool": "*", "action": "allow"},
        {"tool": "*", "action": "allow"},
        {"server": "files", "tool": 3, "action": "deny"},
    ],
)
def test_a_malformed_rule_is_refused(store: Store, rule: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        store.approval_rules.save(rule)


def test_a_rule_for_an_unknown_conversation_is_refused(store: Store) -> None:
    with pytest.raises(RecordNotFoundError):
        store.approval_rules.save({"server": "*", "tool": "*", "action": "allow"}, conversation_id=5)


def test_the_history_view_lists_the_always_grants_the_approval_policy_applies(store: Store) -> None:
    """`edgehost approvals` (the history view) and the running policy filtered the saved rules each
    with a copy of the same line: the two lists must be one."""
    from edgehost.agent.approval import ApprovalPolicy
    from edgehost.host.history_view import HistoryView

    mine = store.create_conversation("mine")
    store.approval_rules.save({"server": "files", "tool": "write_file", "action": "allow"})
    store.approval_rules.save({"server": "*", "tool": "*delete*", "action": "deny"})
    store.approval_rules.save({"server": "memory", "tool": "*", "action": "ask"})
    store.approval_rules.save({"server": "board", "tool": "*", "action": "allow"}, conversation_id=mine)
    store.approval_rules.save({"server": "git", "tool": "git_commit", "action": "allow"})
    history = HistoryView(lambda: store)
    policy = ApprovalPolicy(store=store.approval_rules)
    listed = history.always_allowed()
    assert listed == [
        {"server": "files", "tool": "write_file", "action": "allow"},
        {"server": "git", "tool": "git_commit", "action": "allow"},
    ]
    assert listed == [rule.as_dict() for rule in policy.always_allowed()]
    assert history.forget_always(listed[0])
    assert [rule.tool for rule in policy.always_allowed()] == ["git_commit"]
