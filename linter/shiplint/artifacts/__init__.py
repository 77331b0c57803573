"""Artifacts: wheels, archives and install trees, read without unpacking.

`archive` opens an artifact; `binary` (the only lief module) reads one binary;
`model` and `collect` turn an artifact into the model the SL3xx rules read.
"""
