"""The page-type classifier (article or list) from a page's screenshot, layout and
statistics: PageNet, and the I-AWCE paper's LeNet-5 and ResNet-101 baselines."""
