"""Shapes in the spec (#27): the shape language (`lang`), its static checks (`static`), the
built-in functions (`builtins`) and the engine that evaluates a version's rules for a node
(`engine`). Pure Python over `toolkit.model`; spec text is parsed, never executed.
See docs/guide/shapes.md."""
