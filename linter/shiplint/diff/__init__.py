"""`shiplint diff`: what changed for a package's consumers between two builds."""
