"""URL logic shared by the crawl (sites to stay within), datasets and the evaluation:
the site of a URL or domain, and the key that pairs feed lines with gold pages. Pure.

Key rules (two URLs match when their keys are equal):

- the scheme is dropped: ``http://`` and ``https://`` are the same page;
- the host is lowercased and IDNA-encoded; a trailing dot is removed; ``www.`` is kept;
- default ports (80, 443) are dropped, others kept;
- user info and the fragment are dropped;
- the path is percent-decoded and re-encoded consistently (``%7E`` and ``~`` match),
  empty becomes ``/``, and a trailing slash is removed (``/a/`` matches ``/a``);
- query parameters are sorted by name, then value (blank values kept); their order
  never distinguishes two pages.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

_DEFAULT_PORTS = {80, 443}


def url_key(url: str) -> str:
    """The matching key of ``url`` (see the module docstring for the rules)."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").rstrip(".")
    try:
        host = host.encode("idna").decode("ascii")
    except UnicodeError:
        host = host.lower()
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port is None or port in _DEFAULT_PORTS else f"{host}:{port}"
    path = quote(unquote(parts.path), safe="/:@!$&'()*+,;=-._~")
    path = path.rstrip("/") or "/"
    query = sorted(parse_qsl(parts.query, keep_blank_values=True))
    return f"{netloc}{path}" + (f"?{urlencode(query)}" if query else "")


def normalize_site(host: str) -> str:
    """The form sites and domains compare in: lower case, no trailing dot, no leading
    ``www.`` (the one rule for the crawl, WCXB domains and the split)."""
    return host.strip().lower().rstrip(".").removeprefix("www.")


def site_of(url: str) -> str:
    """The site a URL belongs to: its normalized host, with a non-default port (the
    crawl's ``site`` field, and the site of gold pages that name none)."""
    parts = urlsplit(url)
    host = normalize_site(parts.hostname or "")
    try:
        port = parts.port
    except ValueError:  # a port that is no number names no other site
        port = None
    if port and port not in _DEFAULT_PORTS:
        return f"{host}:{port}"
    return host
