"""The link probe: build tiny consumers of an artifact's package with the host
compiler and each configured CMake, and read what stays in their NEEDED.

`probe.probe_artifact` is the entry point (called from `shiplint.pipeline` when the run
asks for `--link-probe`); `model` holds what the SL5xx rules read.
"""
