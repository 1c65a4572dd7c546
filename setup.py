"""PageSight's two package layouts (the metadata, the pinned dependencies and the
``pagesight`` command are in pyproject.toml).

A wheel (``pip install .``) puts the project's top-level packages (crawler, models,
pipelines, settings) under ``pagesight/_project/``: at the top of site-packages they would
overwrite other distributions' modules of those common names (``settings``, ``models``).
The ``pagesight`` package, the command and the API, puts that folder on ``sys.path``.

Scrapyd's egg (``scrapyd-deploy`` runs ``python setup.py bdist_egg``) keeps them at the
top: Scrapyd's runner puts the egg on ``sys.path`` and imports the settings module that
the egg's ``scrapy`` entry point names, in a process of its own per crawl, where there is
nothing to overwrite.
"""

from setuptools import find_packages, setup
from setuptools.command.bdist_egg import bdist_egg

PROJECT_PACKAGES = ("crawler", "models", "pipelines", "settings")
#: Where a wheel puts them (``pagesight.INSTALLED_FOLDER``).
INSTALLED_UNDER = "pagesight._project"
#: Shipped files the project reads (found through models.common.shipped / importlib.resources,
#: so that they work from a zipped egg too): checkpoints with their cards, label maps,
#: the split, and the labelling app's page.
SHIPPED_DATA = {
    "models": ["checkpoints/*", "label_maps/*.json", "splits/*.json"],
    "crawler.labeling": ["app.html"],
}


def project_packages() -> list[str]:
    """The project's packages and their subpackages, by their import names."""
    return find_packages(include=[pattern for name in PROJECT_PACKAGES for pattern in (name, f"{name}.*")])


class ScrapydEgg(bdist_egg):
    """``bdist_egg``: the project's packages at the top level, the ``scrapy`` entry point
    that names the settings module, and neither the ``pagesight`` package nor its command.
    It builds in a folder of its own: a wheel built after it in the same tree must not
    pick up its top-level packages from ``build/lib``."""

    def finalize_options(self) -> None:
        self.distribution.get_command_obj("build").build_base = "build/scrapyd-egg"
        self.distribution.packages = project_packages()
        self.distribution.package_dir = {}
        self.distribution.package_data = SHIPPED_DATA
        self.distribution.entry_points = {"scrapy": ["settings = settings"]}
        super().finalize_options()


setup(
    packages=["pagesight", *(f"{INSTALLED_UNDER}.{name}" for name in project_packages())],
    package_dir={f"{INSTALLED_UNDER}.{name}": name for name in PROJECT_PACKAGES},
    package_data={f"{INSTALLED_UNDER}.{name}": files for name, files in SHIPPED_DATA.items()},
    include_package_data=False,  # the shipped files are the ones listed, nothing else
    cmdclass={"bdist_egg": ScrapydEgg},
)
