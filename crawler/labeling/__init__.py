"""The labeling tool behind ``scrapy label``: a local web app where a person marks each
captured page's main element (seed 002's interactive browser, in today's browser)."""
