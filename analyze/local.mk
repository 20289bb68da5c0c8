# analyze/ rules (filled in by the analyze work)
