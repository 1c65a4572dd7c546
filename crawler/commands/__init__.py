"""The project's Scrapy commands (``COMMANDS_MODULE``).

Scrapy imports every module here at the start of any command, a crawl included, so a
command imports what only it needs (the evaluation's plots, the annotation, the dataset
servers) inside its methods, not at module level.
"""
