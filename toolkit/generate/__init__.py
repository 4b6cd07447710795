"""Generators: Registry -> {relative output path: bytes}, pure and deterministic."""
