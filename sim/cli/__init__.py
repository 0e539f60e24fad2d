"""The `hexsim` command line: the commands (commands.py), the designer workflows' commands
(workflows.py) and how every command fails (errors.py). `sim.cli:app` is the entry point."""

from sim.cli.commands import WARNING_WIDTH, app, main, warning_lines

__all__ = ["WARNING_WIDTH", "app", "main", "warning_lines"]
