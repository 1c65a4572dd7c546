"""The project's own settings for unit tests (``get_crawler`` starts from Scrapy's
defaults only): every ``PAGESIGHT_*`` default from settings/, plus overrides."""

from __future__ import annotations

from typing import Any

from scrapy.settings import Settings

import settings as project_settings
from pipelines.evaluation.scoring import ScoringConfig


def pagesight_settings(**overrides: Any) -> dict[str, Any]:
    """Every PAGESIGHT_* setting at its default, with ``overrides`` applied."""
    defaults = {name: getattr(project_settings, name) for name in dir(project_settings)}
    return {name: value for name, value in defaults.items() if name.startswith("PAGESIGHT_")} | overrides


def scoring_config(**overrides: Any) -> ScoringConfig:
    """The default scoring config, with ``overrides`` of its fields."""
    return ScoringConfig.from_settings(Settings(pagesight_settings()), **overrides)
