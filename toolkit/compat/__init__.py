"""The breaking-change gate: change model, rule catalog, diff engine, reporters, git refs."""
