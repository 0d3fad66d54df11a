"""Pure statistics for Chartroom: arrays and data frames in, results out.

Nothing here imports Django, so every function can be used from a notebook and
tested without a database.
"""
