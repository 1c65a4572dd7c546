"""Reading a stored artifact back: a local path or ``file://`` URI, gunzipped when it is
gzip (the rendered HTML is stored as ``.html.gz``). Pure: the Scrapy store
(``pipelines.store.ArtifactStore.read``) and ``scrapy extract`` both use it."""

from __future__ import annotations

import gzip
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

GZIP_MAGIC = b"\x1f\x8b"


class ArtifactError(ValueError):
    """An artifact that cannot be read: missing, unreadable, or broken gzip."""


class UnsupportedStoreError(ValueError):
    """An artifact in a store that is written but not read back (s3://, gs://, ftp://)."""


def gunzip_if_gzipped(data: bytes, where: str) -> bytes:
    """``data`` decompressed when it starts with the gzip magic, else as it is."""
    if data[:2] != GZIP_MAGIC:
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError) as error:
        raise ArtifactError(f"{where} looks gzipped but does not decompress: {error}") from error


def local_path(uri_or_path: str) -> Path | None:
    """The path of a local artifact (a path or ``file://`` URI); None for other schemes."""
    parts = urlsplit(uri_or_path)
    if parts.scheme == "file":
        return Path(url2pathname(parts.path))
    if parts.scheme and len(parts.scheme) > 1:  # not a Windows drive letter
        return None
    return Path(uri_or_path)


def read_artifact(uri: str) -> bytes:
    """The bytes of a local artifact (path or ``file://`` URI), gunzipped when gzip;
    :class:`UnsupportedStoreError` for a remote store."""
    path = local_path(uri)
    if path is None:
        raise UnsupportedStoreError(
            f"stored artifacts are read back from local stores (file://) only, not {uri}"
        )
    return read_local_artifact(path)


def read_local_artifact(path: Path) -> bytes:
    """The bytes of a local artifact, gunzipped when gzip."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ArtifactError(f"cannot read {path}: {error.strerror or error}") from error
    return gunzip_if_gzipped(data, str(path))
