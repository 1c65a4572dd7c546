"""PageSight as an installed distribution: the ``pagesight`` command (:mod:`pagesight.cli`)
and the Python API, :func:`extract`.

The project's top-level packages (``crawler``, ``models``, ``pipelines``, ``settings``)
import one another by those names. A wheel installs them under ``pagesight/_project/``,
not at the top of site-packages, where they would overwrite other distributions' modules
of the same common names; importing ``pagesight`` puts that folder first on ``sys.path``.
In a checkout (or an editable install) they sit beside this package, and the checkout is
put there instead. In a process that imports ``pagesight`` those four names are
PageSight's: one that already holds another module of such a name is refused.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: The project's top-level packages, importable by these names once ``pagesight`` is.
PROJECT_PACKAGES = ("crawler", "models", "pipelines", "settings")
#: Where a wheel puts them, inside this package.
INSTALLED_FOLDER = "_project"


def project_folder() -> Path:
    """The folder that holds the project's packages: ``_project`` of an installed wheel,
    else the checkout this package is in."""
    here = Path(__file__).resolve().parent
    for folder in (here / INSTALLED_FOLDER, here.parent):
        if all((folder / name / "__init__.py").is_file() for name in PROJECT_PACKAGES):
            return folder
    raise ImportError(
        f"PageSight's packages ({', '.join(PROJECT_PACKAGES)}) are neither in "
        f"{here / INSTALLED_FOLDER} nor beside {here}: reinstall PageSight"
    )


def use_project_packages() -> Path:
    """Make the project's packages importable by their names (first on ``sys.path``),
    refusing when the process already has another module of one of those names: its
    ``import models`` would silently get the wrong one."""
    folder = project_folder()
    for name in PROJECT_PACKAGES:
        module = sys.modules.get(name)
        where = getattr(module, "__file__", None)
        if module is not None and (where is None or not Path(where).resolve().is_relative_to(folder)):
            raise ImportError(
                f"PageSight needs the module name {name!r}, but this process already imported "
                f"another module of that name ({where or module!r}): run PageSight in a "
                "process of its own (the pagesight command, or a subprocess)"
            )
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return folder


use_project_packages()

from pagesight.api import extract  # noqa: E402  (needs the project's packages on sys.path)
from pipelines.version import PAGESIGHT_VERSION  # noqa: E402

__version__ = PAGESIGHT_VERSION

__all__ = ["__version__", "extract"]
