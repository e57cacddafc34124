"""One module per scenario of the catalogue (docs/method.md). Scenarios measure and record; they never print tables."""
