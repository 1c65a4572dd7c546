"""Fault knobs of the demo web: slow, failing, hanging, huge and non-HTML responses,
pages served without a charset or with a late <meta>, a script redirect to a dead
address, a page that keeps one request open, and a cookie-consent banner."""

from __future__ import annotations

from dataclasses import dataclass, fields

_FLAGS = ("hang", "huge", "non_html", "no_charset", "late_meta", "script_redirect", "stalled", "consent")


@dataclass(frozen=True)
class Faults:
    """What can go wrong on the served demo web.

    ``latency_ms`` delays every response; ``error_rate`` is the seed-chosen share of
    article pages that answer HTTP 500 or 503; ``hang`` links a page that sends its
    headers and part of its HTML and never finishes; ``huge`` links an article of
    several MB; ``non_html`` links a PDF and a PNG image; ``no_charset`` serves HTML as
    plain ``text/html``; ``late_meta`` moves each page's ``<meta charset>`` past the
    first 1024 bytes (where browsers stop looking); ``script_redirect`` links a page
    whose script sends the browser to an address that fails (TLS to a plain-HTTP port);
    ``stalled`` links an article with an image that never finishes loading and one whose
    parser-blocking script never arrives (its render stops before the text); ``consent``
    puts a fixed cookie-consent banner over the first screen of every HTML page.
    """

    latency_ms: int = 0
    error_rate: float = 0.0
    hang: bool = False
    huge: bool = False
    non_html: bool = False
    no_charset: bool = False
    late_meta: bool = False
    script_redirect: bool = False
    stalled: bool = False
    consent: bool = False

    def __post_init__(self) -> None:
        if self.latency_ms < 0:
            raise ValueError(f"latency_ms must be >= 0, got {self.latency_ms}")
        if not 0.0 <= self.error_rate <= 1.0:
            raise ValueError(f"error_rate must be between 0 and 1, got {self.error_rate}")

    @classmethod
    def parse(cls, text: str) -> Faults:
        """Parse a knob string such as ``"latency_ms=50,error_rate=0.1,hang,huge,non_html"``.

        An empty string (or ``"none"``) means no faults.
        """
        values: dict[str, int | float | bool] = {}
        for raw in text.split(","):
            knob = raw.strip()
            if not knob or knob == "none":
                continue
            name, sep, value = (part.strip() for part in knob.partition("="))
            if name in values:
                raise ValueError(f"fault knob {name!r} given twice in {text!r}")
            if name in _FLAGS:
                if sep:
                    raise ValueError(f"fault knob {name!r} takes no value, got {knob!r}")
                values[name] = True
            elif name in ("latency_ms", "error_rate"):
                if not sep or not value:
                    raise ValueError(f"fault knob {name!r} needs a value, e.g. {name}=0.1")
                convert = int if name == "latency_ms" else float
                try:
                    values[name] = convert(value)
                except ValueError:
                    raise ValueError(
                        f"fault knob {name!r} needs a {convert.__name__}, got {value!r}"
                    ) from None
            else:
                known = ", ".join(f.name for f in fields(cls))
                raise ValueError(f"unknown fault knob {name!r} in {text!r}; known: {known}")
        return cls(**values)  # type: ignore[arg-type]

    def __str__(self) -> str:
        """The knob string that parses back to these faults."""
        knobs: list[str] = []
        if self.latency_ms:
            knobs.append(f"latency_ms={self.latency_ms}")
        if self.error_rate:
            knobs.append(f"error_rate={self.error_rate:g}")
        knobs.extend(flag for flag in _FLAGS if getattr(self, flag))
        return ",".join(knobs) or "none"
