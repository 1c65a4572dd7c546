"""Every PageSight command's ``-h``: headings underlined, help lines left as written."""

from __future__ import annotations

import argparse
import itertools
import re
import subprocess
import sys

import pytest

from crawler.commands import HelpFormatter
from tests.support.paths import ROOT

COMMANDS = sorted(
    path.stem for path in (ROOT / "crawler" / "commands").glob("*.py") if path.stem != "__init__"
)


def test_a_help_line_that_wraps_after_a_colon_stays_a_help_line():
    parser = argparse.ArgumentParser(prog="demo", formatter_class=HelpFormatter)
    parser.add_argument(
        "--model", metavar="PATH", help="model Train writes and Predict reads (default: X.npz)"
    )
    group = parser.add_argument_group("training")
    group.add_argument("--epochs", help="passes over the data")
    text = parser.format_help()
    assert "model Train writes and Predict reads (default:" in text
    assert "Training\n========\n" in text and "Options\n=======\n" in text
    assert "Model Train" not in text


@pytest.mark.parametrize("command", COMMANDS)
def test_no_option_help_is_garbled_into_a_heading(command):
    run = subprocess.run(
        [sys.executable, "-m", "scrapy.cmdline", command, "-h"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    for above, line in itertools.pairwise(lines):
        if re.fullmatch(r"[=-]{3,}", line):
            assert len(line) == len(above) and not above.startswith(" "), (above, line)
