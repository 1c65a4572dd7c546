"""The element classifier: gradient-boosted trees that pick the element of a rendered page
holding its main content (``pipelines/extraction/element_classifier.py`` serves it)."""
