"""Reads of the studies app, by area."""
