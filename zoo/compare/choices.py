"""The choices of ``zoo compare``'s options, in a module that imports nothing, so that its command line is
checked before numpy, scipy and Lightning load (:mod:`.arguments`)."""

INTERVALS = ("welch", "bootstrap")  # --ci: Welch's t interval, or a percentile bootstrap over seeds
CORRECTIONS = ("holm", "bonferroni", "none")  # --correction: how one table's p-values are adjusted together
FORMATS = ("table", "markdown", "csv", "json")  # --format
TEXT = ("table", "markdown")  # formats that text may follow (--plan); the others are data, and it goes to stderr
SPLITS = 2000  # --calibrate: splits of each kind drawn when there are more
