"""What pure code may know of Scrapy's settings: the getters it calls (no Scrapy import).

Components read their settings once, through a config dataclass's
``from_settings(settings)``; the defaults live in ``settings/__init__.py`` only.
"""

from __future__ import annotations

from typing import Any, Protocol


class SettingsLike(Protocol):
    """The part of Scrapy's ``Settings`` our config dataclasses read."""

    def get(self, name: str, default: Any = None) -> Any: ...
    def getbool(self, name: str, default: bool = False) -> bool: ...
    def getint(self, name: str, default: int = 0) -> int: ...
    def getfloat(self, name: str, default: float = 0.0) -> float: ...
    def getlist(self, name: str, default: list[Any] | None = None) -> list[Any]: ...
    def getdict(self, name: str, default: dict[Any, Any] | None = None) -> dict[Any, Any]: ...
