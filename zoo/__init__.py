"""zoo: a configurable Transformer model zoo."""
