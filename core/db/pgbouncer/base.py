"""PostgreSQL behind PgBouncer in transaction pooling mode (DB_POOLER=pgbouncer).

PgBouncer hands each transaction to whichever server connection is free, so nothing may
outlive a transaction on the server. Django's ``QuerySet.iterator()`` declares a server-side
cursor; outside a transaction it is WITH HOLD and later FETCHes may reach another server
connection, which does not know it. Inside a transaction (exports: core/streaming.py) the
cursor lives and dies with the transaction on one server connection, and streams. So this
backend keeps server-side cursors inside transactions and reads through ordinary cursors in
autocommit: DISABLE_SERVER_SIDE_CURSORS exactly where it is needed.
"""

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def chunked_cursor(self):
        if self.get_autocommit():
            return self._cursor()
        return super().chunked_cursor()
