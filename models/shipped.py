"""Files shipped inside PageSight's packages (checkpoints, label maps, the split), found
relative to the package, not the working directory: as real paths whether the project
runs from its tree, from an installed wheel or from a zipped Scrapyd egg.

From a zip, a file is extracted once per process (``importlib.resources.as_file``) to a
temporary copy that is removed when the process exits.
"""

from __future__ import annotations

import atexit
from contextlib import ExitStack
from functools import cache
from importlib import resources
from pathlib import Path

#: The project's top-level packages: a relative path starting with one of them names a
#: shipped file (``models/checkpoints/lenet5-article-list.pt``).
PACKAGES = ("crawler", "models", "pipelines", "settings")

_extracted = ExitStack()
atexit.register(_extracted.close)


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
    return _extracted.enter_context(resources.as_file(resource))


def project_file(path: str | Path) -> Path:
    """``path`` itself when it exists, is absolute or is outside the project's packages;
    else the shipped file it names relative to the project root (a setting's default such
    as ``models/checkpoints/lenet5-article-list.pt`` read from another directory, e.g.
    inside Scrapyd)."""
    given = Path(path)
    if given.is_absolute() or given.exists() or len(given.parts) < 2 or given.parts[0] not in PACKAGES:
        return given
    return shipped_file(given.parts[0], "/".join(given.parts[1:]))
