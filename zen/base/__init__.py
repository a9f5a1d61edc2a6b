"""The base layer: small helpers every other layer may use; it imports nothing above it."""
