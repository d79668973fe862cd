"""A bundle's options as its command takes them: several folders of a `multiple` option as several
arguments (typed as a PATH is), one value where the option takes one."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from edgehost.bundles.installing import Bundle
from edgehost.bundles.manifest import read_manifest
from edgehost.form_fields import form_fields

MANIFEST = {
    "manifest_version": "0.3",
    "name": "fs",
    "version": "1.0.0",
    "description": "Files in the folders you allow",
    "author": {"name": "EdgeHost tests"},
    "server": {
        "type": "node",
        "entry_point": "server.js",
        "mcp_config": {
            "command": "node",
            "args": ["${__dirname}/server.js", "${user_config.dirs}", "--mode=${user_config.mode}"],
        },
    },
    "user_config": {
        "dirs": {
            "type": "directory",
            "title": "Folders",
            "description": "The folders it may read",
            "multiple": True,
            "required": True,
            "default": ["${HOME}/Documents"],
        },
        "mode": {"type": "string", "title": "Mode", "description": "read or write", "default": "read"},
    },
}


def bundle() -> Bundle:
    return Bundle(Path("fs.mcpb"), read_manifest(json.dumps(MANIFEST), "fs.mcpb!manifest.json"), b"")


def test_several_folders_are_typed_as_a_path_is_and_become_one_argument_each() -> None:
    [dirs, _mode] = form_fields(bundle().form_schema())
    assert dirs.default == str(Path.home() / "Documents")  # ${HOME} filled in for the person to read
    assert f"separate them with {os.pathsep}" in dirs.description
    plan = bundle().plan(
        "fs", Path("/data/bundles/fs"), {"dirs": f"/srv/a{os.pathsep}/srv/b", "mode": "read"}
    )
    assert plan.command_line() == ["node", "/data/bundles/fs/server.js", "/srv/a", "/srv/b", "--mode=read"]


def test_a_list_for_an_option_of_one_value_is_refused() -> None:
    # A page could otherwise slip extra arguments into the command.
    with pytest.raises(ValueError, match="mode takes one value"):
        bundle().plan("fs", Path("/data/bundles/fs"), {"dirs": "/srv/a", "mode": ["read", "--evil"]})
