# man/ rules (filled in by the man work)
