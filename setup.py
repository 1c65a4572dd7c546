"""`scrapyd-deploy` builds the Scrapyd egg with ``python setup.py bdist_egg``; the
packaging itself (packages, shipped data, the Scrapy entry point) is in pyproject.toml."""

from setuptools import setup

setup()
