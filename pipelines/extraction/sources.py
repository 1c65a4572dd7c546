"""Many pages for batch extraction (``scrapy extract FOLDER`` or ``FILE.warc[.gz]``): the
HTML files of a folder, or the pages of a WARC file (the rendered DOM PageSight wrote when
there is one, else the response as the server sent it, decoded)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from w3lib.encoding import http_content_type_encoding
from warcio.archiveiterator import ArchiveIterator
from warcio.recordloader import ArcWarcRecord

from pipelines.artifacts import ArtifactError, read_local_artifact
from pipelines.extraction.encoding import decode_html, non_html_reason

HTML_SUFFIXES = (".html", ".htm", ".html.gz", ".htm.gz")
WARC_SUFFIXES = (".warc", ".warc.gz")
#: The WARC header that names PageSight's rendered-DOM records (written by pipelines/warc.py).
RECORD_KIND_HEADER = "PageSight-Record"
RENDERED_DOM = "rendered-dom"


@dataclass(frozen=True)
class SourcePage:
    """One page to extract: its URL (a file's ``file://`` URI) and HTML, or why there is none."""

    url: str
    html: str | None = None
    error: str | None = None
    fetched_at: str | None = None


def is_batch_source(source: str) -> bool:
    """A folder or a WARC file (as opposed to one HTML file or URL)."""
    return Path(source).is_dir() or source.lower().endswith(WARC_SUFFIXES)


def batch_pages(source: str) -> Iterator[SourcePage]:
    """The pages of a folder (its HTML files, recursively, in path order) or a WARC file."""
    path = Path(source)
    if path.is_dir():
        yield from folder_pages(path)
    else:
        yield from warc_pages(path)


def folder_pages(folder: Path) -> Iterator[SourcePage]:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name.lower().endswith(HTML_SUFFIXES))
    for file in files:
        url = file.resolve().as_uri()
        try:
            body = read_local_artifact(file)
        except ArtifactError as error:
            yield SourcePage(url, error=str(error))
            continue
        yield page_of_bytes(url, body)


def page_of_bytes(
    url: str, body: bytes, charset: str | None = None, fetched_at: str | None = None
) -> SourcePage:
    """The page of a document's bytes: its HTML decoded (``charset`` from the HTTP header
    when there is one), or a ``not HTML: …`` error when they are something else."""
    reason = non_html_reason(body)
    if reason:
        return SourcePage(url, error=f"not HTML: {reason}", fetched_at=fetched_at)
    return SourcePage(url, decode_html(body, charset), fetched_at=fetched_at)


def warc_pages(path: Path) -> Iterator[SourcePage]:
    """A page per HTML response record, its rendered DOM replacing it when the next record
    is one concurrent to it; rendered-DOM records of their own are pages too."""
    try:
        stream = path.open("rb")
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from error
    with stream:
        held: ArcWarcRecord | None = None
        held_body = b""
        for record in ArchiveIterator(stream):
            body = record.content_stream().read()
            if held is not None:
                if _is_dom(record) and record.rec_headers.get_header("WARC-Concurrent-To") == _id(held):
                    yield _dom_page(record, body)
                    held = None
                    continue
                yield _response_page(held, held_body)
                held = None
            if record.rec_type == "response" and _is_html(record):
                held, held_body = record, body
            elif _is_dom(record):
                yield _dom_page(record, body)
        if held is not None:
            yield _response_page(held, held_body)


def _id(record: ArcWarcRecord) -> str | None:
    found = record.rec_headers.get_header("WARC-Record-ID")
    return None if found is None else str(found)


def _is_dom(record: ArcWarcRecord) -> bool:
    return bool(
        record.rec_type == "resource" and record.rec_headers.get_header(RECORD_KIND_HEADER) == RENDERED_DOM
    )


def _is_html(record: ArcWarcRecord) -> bool:
    content_type = (record.http_headers.get_header("Content-Type") or "") if record.http_headers else ""
    return content_type.split(";", 1)[0].strip().lower() in ("text/html", "application/xhtml+xml", "")


def _dom_page(record: ArcWarcRecord, body: bytes) -> SourcePage:
    return SourcePage(
        record.rec_headers.get_header("WARC-Target-URI"),
        body.decode("utf-8", errors="replace"),
        fetched_at=record.rec_headers.get_header("WARC-Date"),
    )


def _response_page(record: ArcWarcRecord, body: bytes) -> SourcePage:
    url = record.rec_headers.get_header("WARC-Target-URI")
    fetched_at = record.rec_headers.get_header("WARC-Date")
    status = record.http_headers.get_statuscode() if record.http_headers else "200"
    if status != "200":
        return SourcePage(url, error=f"http: HTTP {status}", fetched_at=fetched_at)
    content_type = record.http_headers.get_header("Content-Type") if record.http_headers else None
    charset = http_content_type_encoding(content_type) if content_type else None
    return page_of_bytes(url, body, charset, fetched_at)
