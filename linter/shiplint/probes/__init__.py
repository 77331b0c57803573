"""The probes: real consumers of an artifact's package, built on this host.

What both probes stand on is here: the host and its toolchain (`host`), the part of
the artifact a consumer needs laid out on disk (`layout`), a build tool run bounded in
time in a reduced environment (`runner`), and what a probe says when it could not run
or a part of it did not apply (`model`, and the one shape of those findings:
`status`). Each probe is its own subpackage on top: `link` builds tiny consumers and
reads what they link (SL501-SL506, SL510-SL512); `header` compiles each public header
alone (SL507-SL509).
"""
