"""One module per scenario of DESIGN §3. Scenarios measure and record; they never print tables."""
