"""The annotation queue's assignment rules as plain code; annotation/services/queue.py applies them."""
