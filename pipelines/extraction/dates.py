"""Dates as they appear in pages, normalized to ISO 8601."""

from __future__ import annotations

import re
from datetime import date, datetime
from email.utils import parsedate_to_datetime

_MONTHS = {
    **{
        name: i
        for i, name in enumerate(
            [
                "january",
                "february",
                "march",
                "april",
                "may",
                "june",
                "july",
                "august",
                "september",
                "october",
                "november",
                "december",
            ],
            start=1,
        )
    },
    **{
        name: i
        for i, name in enumerate(
            ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1
        )
    },
    "sept": 9,
    # Russian month names, genitive ("5 января 2024") and nominative.
    **{
        name: i
        for i, name in enumerate(
            [
                "января",
                "февраля",
                "марта",
                "апреля",
                "мая",
                "июня",
                "июля",
                "августа",
                "сентября",
                "октября",
                "ноября",
                "декабря",
            ],
            start=1,
        )
    },
    **{
        name: i
        for i, name in enumerate(
            [
                "январь",
                "февраль",
                "март",
                "апрель",
                "май",
                "июнь",
                "июль",
                "август",
                "сентябрь",
                "октябрь",
                "ноябрь",
                "декабрь",
            ],
            start=1,
        )
    },
}
_MONTH = r"(?P<month_name>[^\W\d_]{3,9})\.?"
_TIME = r"(?:[T\s,]+(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::(?P<second>\d{2}))?)?"
_PATTERNS = [
    # 2024-01-05, 2024/01/05, 2024.01.05, 2024年1月5日 (optionally with a time)
    re.compile(r"(?P<year>\d{4})\s*[-/.年]\s*(?P<month>\d{1,2})\s*[-/.月]\s*(?P<day>\d{1,2})\s*日?" + _TIME),
    # 05.01.2024 (day first, as written in Russia and most of Europe)
    re.compile(r"(?P<day>\d{1,2})\.(?P<month>\d{1,2})\.(?P<year>\d{4})" + _TIME),
    # January 5, 2024 / Jan. 5 2024
    re.compile(_MONTH + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year>\d{4})" + _TIME),
    # 5 January 2024 / 5 января 2024 г.
    re.compile(r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r",?\s+(?P<year>\d{4})" + _TIME),
]


def normalize_date(value: str | None) -> str | None:
    """``value`` as ISO 8601: ``YYYY-MM-DD``, or a full timestamp when it has a time.

    Understands ISO 8601 itself, RFC 2822 (``Tue, 05 Jan 2024 10:00:00 GMT``),
    ``2024/01/05``, ``2024年1月5日``, ``05.01.2024``, ``January 5, 2024``,
    ``5 January 2024`` and ``5 января 2024``. Returns None for anything else.
    """
    if not value:
        return None
    value = value.strip()
    iso = _from_iso(value)
    if iso:
        return iso
    try:
        return parsedate_to_datetime(value).isoformat()
    except (TypeError, ValueError, IndexError):
        pass
    for pattern in _PATTERNS:
        match = pattern.search(value)
        if match:
            found = _from_match(match)
            if found:
                return found
    return None


def _from_iso(value: str) -> str | None:
    text = value.replace("Z", "+00:00") if value.endswith("Z") else value
    if not re.match(r"\d{4}-\d{2}-\d{2}", text):
        return None
    try:
        if len(text) == 10:
            return date.fromisoformat(text).isoformat()
        return datetime.fromisoformat(text).replace(microsecond=0).isoformat()
    except ValueError:
        return None


def _from_match(match: re.Match[str]) -> str | None:
    parts = match.groupdict()
    if parts.get("month_name"):
        month = _MONTHS.get(parts["month_name"].lower())
        if month is None:
            return None
    else:
        month = int(parts["month"])
    try:
        day = date(int(parts["year"]), month, int(parts["day"]))
        if parts.get("hour") is None:
            return day.isoformat()
        return datetime(
            day.year,
            day.month,
            day.day,
            int(parts["hour"]),
            int(parts["minute"]),
            int(parts.get("second") or 0),
        ).isoformat()
    except ValueError:
        return None
