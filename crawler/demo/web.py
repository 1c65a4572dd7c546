"""DemoWeb: the generated demo sites served on local ports, with gold and fault URLs."""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urljoin

from crawler.demo.faults import Faults
from crawler.demo.generator import build_web
from crawler.demo.model import SiteModel
from crawler.demo.server import SiteServer

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DemoSite:
    """A served demo site."""

    name: str
    language: str
    encoding: str  # the charset label its pages declare
    base_url: str  # http://host:port, no trailing slash


def absolute_gold(record: dict[str, Any], base_url: str) -> dict[str, Any]:
    """A gold record with its page and item URLs resolved against ``base_url``."""
    resolved = dict(record, url=urljoin(base_url, record["url"]))
    if "near_duplicate_of" in record:
        resolved["near_duplicate_of"] = urljoin(base_url, record["near_duplicate_of"])
    if "items" in record:
        resolved["items"] = [dict(item, url=urljoin(base_url, item["url"])) for item in record["items"]]
    return resolved


class DemoWeb:
    """The demo news web: generated at construction, served between start() and stop().

    Sites are served on ``base_port``, ``base_port + 1``, ... in :func:`site_names` order
    (``base_port=0``: free ports). URLs, gold and fault lists are available once started.
    Gold covers every article and list page that answers 200; error pages, the hanging,
    stalled, script-redirect and huge pages, the PDF, the PNG and the robots-blocked page
    have none. Pages never embed host or port, so the served bytes are the generated ones
    for any port (the ``no_charset``, ``late_meta`` and ``consent`` knobs change how they
    are served, see :func:`crawler.demo.server.served`).
    """

    def __init__(
        self,
        seed: int = 2026,
        articles_per_site: int = 12,
        faults: Faults | None = None,
        host: str = "127.0.0.1",
        base_port: int = 0,
    ) -> None:
        if not 0 <= base_port <= 65535:
            raise ValueError(f"base_port must be between 0 and 65535, got {base_port}")
        self.seed = seed
        self.articles_per_site = articles_per_site
        self.faults = faults or Faults()
        self.host = host
        self.base_port = base_port
        self.models: list[SiteModel] = build_web(seed, articles_per_site, self.faults)
        self._servers: list[SiteServer] = []

    # --- Serving --------------------------------------------------------------------
    def start(self) -> DemoWeb:
        """Bind and serve every site; on a bind failure nothing stays bound."""
        if self._servers:
            raise RuntimeError("DemoWeb is already started")
        try:
            for index, model in enumerate(self.models):
                port = self.base_port + index if self.base_port else 0
                try:
                    server = SiteServer(model, self.faults, self.host, port)
                except OSError as error:
                    where = f"{self.host}:{port}"
                    raise OSError(
                        f"demo web: cannot serve site {model.spec.name!r} on {where}: {error}"
                    ) from error
                self._servers.append(server)
                server.start()
        except BaseException:
            self.stop()
            raise
        for site in self.sites:
            logger.info(
                "demo web: %s (%s, %s) at %s/",
                site.name,
                site.language,
                site.encoding,
                site.base_url,
            )
        return self

    def stop(self) -> None:
        """Stop every server and join its threads (hanging responses are released). Idempotent."""
        servers, self._servers = self._servers, []
        for server in servers:
            server.stop()

    def __enter__(self) -> DemoWeb:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def _served(self) -> list[tuple[SiteModel, str]]:
        if not self._servers:
            raise RuntimeError("DemoWeb is not started: call start() or use it as a context manager")
        return [(server.model, server.base_url) for server in self._servers]

    # --- What is served -------------------------------------------------------------
    @property
    def sites(self) -> list[DemoSite]:
        """The served sites, in port order."""
        return [
            DemoSite(model.spec.name, model.spec.language.code, model.spec.charset.label, base_url)
            for model, base_url in self._served()
        ]

    @property
    def seed_urls(self) -> list[str]:
        """Each site's home page URL."""
        return [base_url + "/" for _, base_url in self._served()]

    @property
    def gold(self) -> list[dict[str, Any]]:
        """Gold records of every content page that answers 200, with absolute URLs."""
        return [
            absolute_gold(record, base_url)
            for model, base_url in self._served()
            for record in model.gold_records()
        ]

    def write_gold(self, path: str | Path) -> Path:
        """Write :attr:`gold` as JSONL (UTF-8, one record per line); returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as out:
            for record in self.gold:
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
        return path

    def _urls(self, attribute: str) -> list[str]:
        return [base_url + path for model, base_url in self._served() for path in getattr(model, attribute)]

    @property
    def error_urls(self) -> list[str]:
        """Pages that answer HTTP 500 or 503 (``error_rate``); not in gold."""
        return self._urls("error_paths")

    @property
    def hang_urls(self) -> list[str]:
        """Pages that send part of their HTML and never finish (``hang``)."""
        return self._urls("hang_paths")

    @property
    def huge_urls(self) -> list[str]:
        """Article pages of several MB (``huge``); not in gold."""
        return self._urls("huge_paths")

    @property
    def non_html_urls(self) -> list[str]:
        """A PDF and a PNG image (``non_html``)."""
        return self._urls("non_html_paths")

    @property
    def script_redirect_urls(self) -> list[str]:
        """Pages whose script sends the browser to an address that fails (``script_redirect``)."""
        return self._urls("script_redirect_paths")

    @property
    def stalled_urls(self) -> list[str]:
        """Articles with an image or a parser-blocking script that never finishes loading
        (``stalled``); not in gold."""
        return self._urls("stalled_paths")

    @property
    def robots_blocked_urls(self) -> list[str]:
        """Linked pages that robots.txt disallows; a polite crawler never requests them."""
        return self._urls("robots_blocked_paths")

    @property
    def hits(self) -> Counter[str]:
        """Requests received so far, by absolute URL."""
        counts: Counter[str] = Counter()
        for server in self._servers:
            for path, count in server.hits.items():
                counts[server.base_url + path] += count
        return counts
