"""Asking a model a study's questions over an OpenAI-compatible endpoint (``run_models``).

``client`` holds the HTTP side (no Django), ``progress`` the terminal bar, ``run``
the planning, storing and importing.
"""
