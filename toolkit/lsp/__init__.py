"""`opset lsp`: the spec checks, hover, navigation, completion and quick fixes in an editor, over
the Language Server Protocol (pygls, the optional `[lsp]` extra).

`workspace.py` is the checking engine (no LSP types): the loader reads the editor's unsaved
buffers through its `contents` seam, and an edit of one operator file re-checks that file against
the cached load. `server.py` wires the protocol; each feature is its own module.
"""
