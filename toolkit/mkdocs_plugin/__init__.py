"""The mkdocs plugin `opset` (`plugin.OpsetPlugin`, the `mkdocs.plugins` entry point). Importing
this package loads nothing; mkdocs imports `plugin` through the entry point."""
