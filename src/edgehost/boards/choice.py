"""Choosing the board profile: by name (``--profile NAME``, the ``profile`` setting) or from the detected
board (device-tree compatible and model strings, Armbian's ``BOARD=``, the SoC, the CPU architecture),
with the rule that matched and what is wrong with the choice."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from edgehost.boards.detection import BoardInfo
from edgehost.boards.profiles import BoardProfile, warn_once
from edgehost.errors import ConfigError, UsageError
from edgehost.settings import SettingText
from edgehost.validation_messages import near_miss

__all__ = [
    "ProfileChoice",
    "ProfileWarning",
    "choose_profile",
    "match_rule",
    "match_score",
    "profile_mismatch",
    "select_profile",
]


def _model_pattern_matches(pattern: str, model: str) -> bool:
    # "Orange Pi 5" must not match "Orange Pi 5B" nor "ROCK 5B" match "ROCK 5B+": the pattern has to
    # end where a word ends.
    return re.search(re.escape(pattern) + r"(?![\w+])", model, re.IGNORECASE) is not None


def match_rule(profile: BoardProfile, info: BoardInfo) -> tuple[tuple[int, int], str] | None:
    """How well ``profile`` fits the board and by which of its rules: ((rule strength, matched length),
    the rule in words, e.g. "device-tree compatible string 'radxa,rock-5b'"); None if it does not fit.

    Board-specific rules (compatible, Armbian BOARD) beat a model-string match, which beats a SoC
    match, which beats a CPU architecture match; among equals the longest matched string wins.
    """
    rules = profile.match
    best: tuple[tuple[int, int], str] | None = None

    def consider(score: tuple[int, int], rule: str) -> None:
        nonlocal best
        if best is None or score > best[0]:
            best = (score, rule)

    compatible = {c.lower() for c in info.compatible}
    for entry in rules.compatible:
        if entry.lower() in compatible:
            consider((4, len(entry)), f"device-tree compatible string {entry!r}")
    if info.armbian_board:
        for board in rules.armbian_board:
            if board.lower() == info.armbian_board.lower():
                consider((4, len(board)), f"Armbian board {board!r} (/etc/armbian-release)")
    if info.model:
        for pattern in rules.model:
            if _model_pattern_matches(pattern, info.model):
                consider((3, len(pattern)), f"model name {pattern!r} (in {info.model!r})")
    if info.soc:
        for soc in rules.soc:
            if info.soc.lower().startswith(soc.lower()):
                consider((2, len(soc)), f"SoC {info.soc!r}")
    for arch in rules.arch:
        if arch.lower() == info.machine.lower():
            consider((1, len(arch)), f"CPU architecture {info.machine!r}")
    return best


def match_score(profile: BoardProfile, info: BoardInfo) -> tuple[int, int] | None:
    """How well ``profile`` fits the board (see match_rule); None if it does not."""
    found = match_rule(profile, info)
    return found[0] if found else None


def _soc_family(soc: str) -> str:
    found = re.match(r"rk\d{4}", soc.lower())
    return found.group(0) if found else soc.lower()


def profile_mismatch(profile: BoardProfile, info: BoardInfo) -> str | None:
    """Why ``profile`` is for other hardware than this (an RK3588 profile on a PC: "is for an RK3588
    board, but this machine is an x86_64 machine without one"); None when it may fit."""
    socs = [profile.soc] if profile.soc else list(profile.match.soc)
    families = {_soc_family(soc) for soc in socs}
    if families and not any((info.soc or "").lower().startswith(family) for family in families):
        wanted = " or ".join(sorted(family.upper() for family in families))
        here = f"has an {info.soc.upper()}" if info.soc else f"is an {info.machine} machine without one"
        return f"is for an {wanted} board, but this machine {here}"
    arches = {arch.lower() for arch in profile.match.arch}
    if arches and not socs and info.machine.lower() not in arches:
        return f"is for {' or '.join(profile.match.arch)} machines, but this one is {info.machine}"
    return None


@dataclass(frozen=True)
class ProfileWarning:
    """Something wrong with the profile choice that does not stop EdgeHost, with what to do about it."""

    problem: str
    hint: str


@dataclass(frozen=True)
class ProfileChoice:
    """The profile in use, who chose it (``--profile``, ``settings`` or ``detection``), the detection
    rule that matched (detection only), and what is wrong with the choice."""

    profile: BoardProfile
    chosen_by: str
    rule: str | None = None
    warnings: tuple[ProfileWarning, ...] = ()


def choose_profile(
    info: BoardInfo, profiles: Sequence[BoardProfile], override: str | None = None
) -> ProfileChoice:
    """The profile named by ``override``, else the best match for ``info``; nothing is logged.

    ``override`` is ``--profile NAME``, or the ``profile`` setting (a SettingText, which remembers its
    file). A name given on the command line that names no profile raises UsageError ("did you mean"
    and the known names); one the settings file names falls back to the detected profile with a
    warning naming the file and the key. A named profile for other hardware (an RK3588 profile on a PC)
    is used, with a warning. Raises ConfigError when nothing is named and no profile matches (the
    generic ones should always match).
    """
    from_settings = isinstance(override, SettingText)
    named = next((p for p in profiles if p.name == override), None) if override else None
    if override and named is None and not from_settings:
        names = ", ".join(p.name for p in profiles)
        raise UsageError(
            f"unknown board profile {override!r}{_did_you_mean(override, profiles)}; known profiles: {names}"
        )
    if named is None:
        detected, rule = _detect(info, profiles)
        warnings = (_unknown_setting(override, detected, profiles),) if override else ()
        return ProfileChoice(detected, "detection", rule, warnings)
    mismatch = profile_mismatch(named, info)
    if mismatch is None:
        return ProfileChoice(named, "settings" if from_settings else "--profile")
    try:
        detected_name = repr(_detect(info, profiles)[0].name)
    except ConfigError:
        detected_name = "no profile"
    if isinstance(override, SettingText):
        origin, leave_out = (
            f"the {override.key!r} setting in {override.file}",
            f"remove {override.key!r} from {override.file}",
        )
        chosen_by = "settings"
    else:
        origin, leave_out, chosen_by = "--profile", "leave out --profile", "--profile"
    warning = ProfileWarning(
        f"the board profile {named.name!r} ({origin}) {mismatch}: it does not match the detected board "
        f"(detection chooses {detected_name}), so its CPU pinning and NPU backend do not apply here",
        f"{leave_out} to use the detected profile, unless you are trying out that board's profile on purpose",
    )
    return ProfileChoice(named, chosen_by, None, (warning,))


def select_profile(
    info: BoardInfo, profiles: Sequence[BoardProfile], override: str | None = None
) -> BoardProfile:
    """choose_profile's profile; its warnings go to the log (each once per process).

    Raises UsageError when ``override`` is a command-line name of no profile, and ConfigError when no
    profile matches at all.
    """
    choice = choose_profile(info, profiles, override)
    for warning in choice.warnings:
        warn_once(warning.problem)
    return choice.profile


def _detect(info: BoardInfo, profiles: Sequence[BoardProfile]) -> tuple[BoardProfile, str]:
    scored = [(found, profile) for profile in profiles if (found := match_rule(profile, info)) is not None]
    if not scored:
        raise ConfigError(f"no board profile matches this machine ({info.machine}); use --profile NAME")
    (_score, rule), profile = max(scored, key=lambda item: item[0][0])
    return profile, rule


def _did_you_mean(name: str, profiles: Sequence[BoardProfile]) -> str:
    meant = near_miss(name, [p.name for p in profiles])
    return f" (did you mean {meant!r}?)" if meant else ""


def _unknown_setting(name: str, detected: BoardProfile, profiles: Sequence[BoardProfile]) -> ProfileWarning:
    file = name.file if isinstance(name, SettingText) else ""
    key = name.key if isinstance(name, SettingText) and name.key else "profile"
    line = name.line if isinstance(name, SettingText) else None
    problem = ConfigError(
        f"unknown board profile {name!r}{_did_you_mean(name, profiles)}; "
        f"using the detected profile {detected.name!r} instead",
        path=file or None,
        line=line,
        field=key,
    )
    meant = near_miss(name, [p.name for p in profiles])
    fix = (
        f"set {key!r} to {meant!r}"
        if meant
        else f"set {key!r} to one of {', '.join(p.name for p in profiles)}"
    )
    return ProfileWarning(
        str(problem), f"{fix} in {file or 'the settings'}, or remove it to use the detected profile"
    )
