"""The bundled demo news web: seeded sites in four languages and charsets, served locally.

Generation (:mod:`crawler.demo.generator`) is pure; :class:`DemoWeb` serves it, one
site per port, and hands out gold records and the URLs behind each fault knob.
"""

from crawler.demo.faults import Faults
from crawler.demo.generator import build_web, site_names
from crawler.demo.web import DemoSite, DemoWeb, absolute_gold

__all__ = ["DemoSite", "DemoWeb", "Faults", "absolute_gold", "build_web", "site_names"]
