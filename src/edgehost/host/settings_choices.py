"""What a face offers for the settings it edits (the window's Settings dialog, the web page's Settings
panel): the board profiles, the user's own among them, with the detected one said first."""

from __future__ import annotations

from edgehost.boards import (
    BoardProfile,
    choose_profile,
    detect_board,
    load_profiles,
    system_root,
    user_profiles_dir,
)
from edgehost.errors import EdgeHostError
from edgehost.paths import Paths

__all__ = ["profile_choices"]


def profile_choices(paths: Paths) -> tuple[str, list[tuple[str, str]]]:
    """("Detected: Radxa ROCK 5B", [(name, label), …]): what choosing no profile means here, then every
    profile by name, the detected one marked. Reads sysfs and the profile files (once): call it off the
    loop."""
    profiles: list[BoardProfile] = []
    try:
        profiles = load_profiles(user_dir=user_profiles_dir(paths))
        detected = choose_profile(detect_board(system_root()), profiles).profile
        detected_name: str | None = detected.name
        detected_label = f"Detected: {detected.display_name}"
    except EdgeHostError as exc:
        detected_name, detected_label = None, f"Detected: none ({exc})"
    return detected_label, [
        (p.name, p.display_name + ("  (detected)" if p.name == detected_name else "")) for p in profiles
    ]
