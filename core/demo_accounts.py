"""The demo's account names and its published password.

They live in core, not in the ``demo`` app that creates the accounts, because
core's production start-up check (core.security) must know them to refuse a
server whose demo accounts still sign in with the published password, and core
imports no app above it.
"""

DEMO_PASSWORD = "chartroom-demo"
RESEARCHER = "researcher"
ANNOTATORS = ["annotator1", "annotator2", "annotator3"]
# An annotator who still has to pass the demo project's qualification rounds.
NEW_ANNOTATOR = "annotator-new"
ADMIN = "admin"
# Every account the demo creates with the published password.
DEMO_USERNAMES = [RESEARCHER, *ANNOTATORS, NEW_ANNOTATOR, ADMIN]
