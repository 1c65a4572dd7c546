"""The ``pagesight`` command: every Scrapy command of the project, from any directory
(``pagesight extract|crawl|evaluate|label …`` is ``scrapy extract|crawl|…`` in the
checkout).

Scrapy finds a project's settings through a ``scrapy.cfg`` in the working directory or
above it, so outside the checkout ``scrapy extract`` is an unknown command. This command
names the settings module of the installed package instead (``SCRAPY_SETTINGS_MODULE``),
as trafilatura's finds its settings file from its package; the checkpoints were found from
the packages already (``models.common.shipped``).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import scrapy
from scrapy import cmdline
from scrapy.commands import ScrapyCommand
from scrapy.utils.project import get_project_settings

from pipelines.extraction.standalone import discard_stdout
from pipelines.version import PAGESIGHT_VERSION

PROG = "pagesight"
#: The project's settings module (scrapy.cfg's ``[settings] default``).
SETTINGS_MODULE = "settings"


def main(argv: list[str] | None = None) -> None:
    """Run ``pagesight ARGS`` and exit with the command's status. A reader that stops
    early (``pagesight … | head``) ends the output quietly."""
    args = list(sys.argv[1:] if argv is None else argv)
    # Always PageSight's settings: a SCRAPY_SETTINGS_MODULE left from another project
    # would run its commands instead (settings change per run with -s NAME=VALUE).
    os.environ["SCRAPY_SETTINGS_MODULE"] = SETTINGS_MODULE
    code: int | str | None = 0
    try:
        code = run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        discard_stdout()
    sys.exit(code)


def run(args: list[str]) -> int | str | None:
    """The command's exit status: Scrapy's for a command, ours for the overview."""
    if args == ["--version"]:
        print(f"PageSight {PAGESIGHT_VERSION} (Scrapy {scrapy.__version__})")
        return 0
    commands = _commands()
    name = next((arg for arg in args if not arg.startswith("-")), None)
    if name is None:  # nothing, -h or --help
        print(overview(commands))
        return 0
    if name not in commands:
        print(f'Unknown command: {name}\nUse "{PROG} -h" to see the commands', file=sys.stderr)
        return 2
    # Scrapy names its parser class at each command: ours writes the usage as `pagesight`.
    cmdline.ScrapyArgumentParser = _Parser  # type: ignore[misc,assignment]
    try:
        cmdline.execute([PROG, *args])
    except SystemExit as done:
        return done.code
    return 0


def overview(commands: dict[str, ScrapyCommand]) -> str:
    """``pagesight -h``: the usage and every command with its one-line description."""
    width = max(map(len, commands))
    listing = "\n".join(
        f"  {name:<{width}}  {command.short_desc()}" for name, command in sorted(commands.items())
    )
    return (
        f"PageSight {PAGESIGHT_VERSION} (Scrapy {scrapy.__version__})\n\n"
        f"Usage:\n  {PROG} <command> [options] [args]\n\n"
        f"Available commands:\n{listing}\n\n"
        f'Use "{PROG} <command> -h" to see more info about a command; "{PROG} --version" for the version'
    )


def _commands() -> dict[str, ScrapyCommand]:
    """Scrapy's commands and the project's (``COMMANDS_MODULE``), by name, as ``scrapy``
    lists them inside the project (Scrapy's own function: it is pinned, and
    tests/e2e/test_install.py runs this)."""
    return cmdline._get_commands_dict(get_project_settings(), inproject=True)


class _Parser(cmdline.ScrapyArgumentParser):
    """Scrapy's parser of a command's options, its usage line naming ``pagesight``
    (Scrapy writes ``scrapy <command>``, which outside the checkout does not run)."""

    def __init__(self, **kwargs: Any) -> None:  # Scrapy passes keywords only
        usage = kwargs.get("usage")
        if isinstance(usage, str) and usage.startswith("scrapy "):
            kwargs["usage"] = PROG + usage.removeprefix("scrapy")
        super().__init__(**kwargs)
