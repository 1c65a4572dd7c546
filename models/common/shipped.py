"""Files shipped inside PageSight's packages (checkpoints, label maps, the split), found
relative to the package, not the working directory: as real paths whether the project
runs from its tree, from an installed wheel or from a zipped Scrapyd egg.

From a zip, a file is extracted to the user's cache (``$XDG_CACHE_HOME``, else
``~/.cache``, under ``pagesight/shipped/<sha256 prefix>/``; the temporary folder when
there is no writable home): one copy per content,
shared by every process and reused while its bytes match, so that a process killed
before it exits (Scrapyd's cancel) leaves no stray copy behind.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from functools import cache
from importlib import resources
from pathlib import Path

#: The project's top-level packages: a relative path starting with one of them names a
#: shipped file (``models/checkpoints/lenet5-article-list.pt``).
PACKAGES = ("crawler", "models", "pipelines", "settings")


def shipped_resource(package: str, relative: str) -> resources.abc.Traversable:
    """The shipped file or folder ``relative`` (``/``-separated) of ``package``."""
    return resources.files(package).joinpath(*relative.split("/"))


@cache
def shipped_file(package: str, relative: str) -> Path:
    """A real path to the shipped file ``relative`` (``/``-separated) of ``package``.

    A file that is not there (a checkpoint not trained yet) is its would-be path, so that
    a trainer can write it and a loader can say that it is missing."""
    resource = shipped_resource(package, relative)
    if isinstance(resource, Path) or not resource.is_file():
        return Path(str(resource))
    return _extracted_copy(resource)


def shipped_cache() -> Path:
    """Where files shipped inside a zip are extracted: the user's cache, or the temporary
    folder for a user without a writable home (a daemon's)."""
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        base.mkdir(parents=True, exist_ok=True)
        if os.access(base, os.W_OK):
            return base / "pagesight" / "shipped"
    except (OSError, RuntimeError):  # no home directory, or one that cannot be written
        pass
    return Path(tempfile.gettempdir()) / f"pagesight-shipped-{os.getuid()}"


def _extracted_copy(resource: resources.abc.Traversable) -> Path:
    """The cached copy of a zipped file, written (atomically) unless it holds its bytes."""
    data = resource.read_bytes()
    target = shipped_cache() / hashlib.sha256(data).hexdigest()[:16] / resource.name
    if target.is_file() and target.read_bytes() == data:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{resource.name}.")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    os.replace(partial, target)
    return target


def project_file(path: str | Path) -> Path:
    """``path`` itself when it exists, is absolute or is outside the project's packages;
    else the shipped file it names relative to the project root (a setting's default such
    as ``models/checkpoints/lenet5-article-list.pt`` read from another directory, e.g.
    inside Scrapyd)."""
    given = Path(path)
    if given.is_absolute() or given.exists() or len(given.parts) < 2 or given.parts[0] not in PACKAGES:
        return given
    return shipped_file(given.parts[0], "/".join(given.parts[1:]))
