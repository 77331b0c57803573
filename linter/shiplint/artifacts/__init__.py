"""Artifacts: wheels, archives and install trees, read without unpacking.

`archive` opens an artifact; `reading` reads its binaries;
`model` and `collect` turn an artifact into the model the SL3xx rules read.
"""
