"""Operator registrations: which operators each library registers, into which registry.

Models in `model`, kernel-table reading in `tables`, registry resolution in
`registries`, assembly per artifact in `collect`. Nothing here parses a binary:
the relocated pointers come from `shiplint.artifacts.reading`.
"""
