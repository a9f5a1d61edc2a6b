"""Unused since the tone module; kept for old scripts."""

END = "."
