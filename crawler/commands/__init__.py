"""The project's Scrapy commands (``COMMANDS_MODULE``).

Scrapy imports every module here at the start of any command, a crawl included, so a
command imports what only it needs (the evaluation's plots, the annotation, the dataset
servers) inside its methods, not at module level.
"""

from __future__ import annotations

import argparse

from scrapy.commands import ScrapyHelpFormatter


class HelpFormatter(ScrapyHelpFormatter):
    """Scrapy's help layout, with headings told apart from help lines.

    Scrapy underlines and title-cases every formatted part that ends in ``:``. argparse
    hands an option's help over one line a part, so a help line that wrapped just after a
    colon (``… (default:``) became a heading. argparse sets a section's heading apart
    with a part of its own, a lone newline, before it; a help line never has one."""

    def format_part_strings(self, part_strings: list[str]) -> list[str]:
        if part_strings and part_strings[0].startswith("usage: "):
            part_strings[0] = "Usage\n=====\n  " + part_strings[0].removeprefix("usage: ")
        headings = [
            i
            for i in range(1, len(part_strings))
            if part_strings[i - 1] == "\n" and part_strings[i].endswith(":\n")
        ]
        for index in reversed(headings):
            title = part_strings[index].removesuffix(":\n").title()
            char = "-" if "Global Options" in title else "="
            part_strings[index] = title
            part_strings.insert(index + 1, f"\n{char * len(title)}\n")
        return part_strings

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        """Paragraphs (blank-line apart) are wrapped; an indented one (a table of
        arguments) keeps its lines."""
        return "\n\n".join(
            "\n".join(indent + line for line in block.splitlines())
            if block.startswith("  ")
            else super(HelpFormatter, self)._fill_text(block, width, indent)
            for block in text.split("\n\n")
        )


def use_help_formatter(parser: argparse.ArgumentParser) -> None:
    """Every PageSight command's ``add_options`` calls this (see :class:`HelpFormatter`)."""
    parser.formatter_class = HelpFormatter
