# SPDX-License-Identifier: MIT
"""What the Python unit tests share: the command scripts of
tools/commands/ loaded as modules."""

import importlib.util
import os

COMMANDS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))), "tools", "commands")


def command_module(name):
    """tools/commands/NAME.py as a module (its main not run)."""
    spec = importlib.util.spec_from_file_location(
        "sockboost_" + name, os.path.join(COMMANDS, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
