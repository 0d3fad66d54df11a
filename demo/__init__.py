"""The demo `make demo` loads: accounts, a chart library, a study with simulated results,
model answers and an annotation project.

It sits above both apps (it builds data in studies and in annotation), so neither app
imports it and core imports neither.
"""
