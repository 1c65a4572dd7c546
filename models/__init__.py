"""Page-type classification from page screenshots: networks, data, training, checkpoints."""
