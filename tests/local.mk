# tests/ rules (filled in by the tests work)
