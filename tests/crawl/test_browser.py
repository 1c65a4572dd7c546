"""Chromium detection and the launch options the add-on writes."""

import os
import stat

import pytest
from scrapy.settings import Settings

import settings as project_settings
from crawler import browser
from crawler.browser import BrowserAddon, BrowserNotFound, find_chromium


def test_configured_path_wins(tmp_path):
    exe = tmp_path / "my-chrome"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    assert find_chromium(str(exe)) == str(exe)


def test_configured_path_must_be_executable(tmp_path):
    with pytest.raises(BrowserNotFound, match="not an executable"):
        find_chromium(str(tmp_path / "nope"))


def test_playwright_browser_preferred(tmp_path, monkeypatch):
    chrome = tmp_path / "chromium-1200" / "chrome-linux" / "chrome"
    chrome.parent.mkdir(parents=True)
    chrome.write_text("")
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    assert find_chromium() == str(chrome)


def test_nothing_found_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(browser, "SYSTEM_CHROMIUM_CANDIDATES", ())
    with pytest.raises(BrowserNotFound, match="apt-get install chromium"):
        find_chromium()


def test_a_chromium_on_the_path_is_found(tmp_path, monkeypatch):
    chrome = tmp_path / "chromium"
    chrome.write_text("#!/bin/sh\n")
    chrome.chmod(chrome.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "none"))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(browser, "SYSTEM_CHROMIUM_CANDIDATES", ())
    assert find_chromium() == str(chrome)


def test_addon_fills_launch_options():
    settings = Settings()
    settings.setmodule(project_settings, priority="project")
    BrowserAddon().update_settings(settings)
    options = settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS")
    assert os.access(options["executable_path"], os.X_OK)
    assert "--disable-background-networking" in options["args"]
    assert settings.getfloat("PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT") == 30_000


def test_addon_keeps_users_launch_options():
    settings = Settings({"PLAYWRIGHT_LAUNCH_OPTIONS": {"executable_path": "/x"}})
    BrowserAddon().update_settings(settings)
    assert settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS") == {"executable_path": "/x"}


def test_default_feed_only_when_the_crawl_names_none():
    from crawler.feeds import DefaultFeedAddon

    settings = Settings({"PAGESIGHT_DEFAULT_FEED": "output/news-%(time)s.jsonl"})
    DefaultFeedAddon().update_settings(settings)
    assert list(settings.getdict("FEEDS")) == ["output/news-%(time)s.jsonl"]
    named = Settings({"PAGESIGHT_DEFAULT_FEED": "output/news-%(time)s.jsonl"})
    named.set("FEEDS", {"out.jsonl": {"format": "jsonlines", "overwrite": True}}, priority="cmdline")
    DefaultFeedAddon().update_settings(named)
    assert list(named.getdict("FEEDS")) == ["out.jsonl"]
