"""The probes: real consumers of an artifact's package, built on this host."""
