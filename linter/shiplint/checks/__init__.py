"""Rules, one module per area; each area exports RULES."""
