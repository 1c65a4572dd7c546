"""PageSight's own signals (``crawler.signals.connect(handler, signal=...)``)."""

#: The demo web serves its sites and has written its gold. Arguments: ``seed_urls``
#: (the home pages, list[str]) and ``gold_path`` (str).
demo_web_started = object()
#: The scoring pipeline has its gold and scores pages into an evaluation. Argument:
#: ``evaluation`` (``pipelines.evaluation.scorebook.Evaluation``), read when the spider closes.
evaluation_started = object()
#: The frontier pipeline has planned a finished page's links. Arguments: ``item`` (the
#: PageItem), ``links`` (list of ``crawler.frontier.FollowLink``, most urgent first) and
#: ``depth`` (theirs). The spider turns those within its sites into requests.
links_planned = object()
