"""The breaking-change gate: the diff engine (`engine`), the rules by category (`rules/`), the
configuration and its plugins (`config`, `plugins`), git refs as old trees (`gitref`), the gate
itself (`gate`) and the rules page (`docs`). Reporters live in `toolkit.reporting.gate`."""
