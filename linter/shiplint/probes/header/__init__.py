"""The header probe: compile each public header of an artifact's package alone, with the
flags the config's imported targets publish, using real CMake and the host compiler.

`probe.probe_headers` is the entry point (called from `shiplint.pipeline` when the run
asks for `--header-probe`); `model` holds what the header rules read.
"""
