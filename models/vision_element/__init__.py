"""The vision element model: scores each candidate box of a rendered page as the main
content block from the screenshot (the frozen EfficientNet-Lite0 trunk, once per page)
and the box geometry (``pipelines/extraction/vision_element.py`` serves it)."""
