"""Semantic spec checks, one module per family of rules; `spec.check_specs` runs them."""
