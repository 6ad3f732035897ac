"""Speed benchmarks of the zoo against reference implementations at equal shapes (issue 8); run
``python benchmarks/throughput.py --help``. A script, never a timed test."""
