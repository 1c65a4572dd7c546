"""Small HTML helpers shared by the site themes."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from html import escape


def esc(text: str) -> str:
    """Text escaped for HTML content and attribute values."""
    return escape(text, quote=True)


def join(parts: Iterable[str]) -> str:
    """Concatenate rendered fragments one per line."""
    return "\n".join(parts)


def palette(key: str) -> tuple[str, str, str]:
    """Three colours derived from ``key`` (stable across runs)."""
    digest = hashlib.md5(key.encode("utf-8")).digest()
    hue = digest[0] * 360 // 256
    return (
        f"hsl({hue},55%,42%)",
        f"hsl({(hue + 40) % 360},60%,62%)",
        f"hsl({(hue + 180) % 360},45%,80%)",
    )


def svg_picture(key: str, width: int, height: int) -> str:
    """A deterministic abstract picture (gradient sky, sun, hills) as an SVG document."""
    dark, light, accent = palette(key)
    digest = hashlib.md5(f"shape/{key}".encode()).digest()
    sun_x = width * (20 + digest[1] % 60) // 100
    sun_r = height * (8 + digest[2] % 10) // 100
    hill = height * (55 + digest[3] % 20) // 100
    gid = "g" + hashlib.md5(key.encode("utf-8")).hexdigest()[:8]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img">'
        f'<defs><linearGradient id="{gid}" x1="0" y1="0" x2="0" y2="1">'
        f'<stop offset="0" stop-color="{light}"/><stop offset="1" stop-color="{accent}"/>'
        f"</linearGradient></defs>"
        f'<rect width="{width}" height="{height}" fill="url(#{gid})"/>'
        f'<circle cx="{sun_x}" cy="{height // 3}" r="{sun_r}" fill="#fff8e0" opacity="0.85"/>'
        f'<path d="M0 {hill} Q {width // 3} {hill - height // 5} {width // 2} {hill} '
        f'T {width} {hill - height // 10} V {height} H 0 Z" fill="{dark}"/>'
        f"</svg>"
    )
