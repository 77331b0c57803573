"""A picture of a package (Mermaid): what `check --format mermaid`, `diff --format
mermaid` and the Markdown reports draw. `mermaid` writes a flowchart, `package` lays a
package out in one, `views` says what is drawn and marked, `pictures` is the entry."""
