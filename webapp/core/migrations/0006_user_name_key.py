"""One account per look of a user name: a unique index on ``user_name_key(username)``.

See ``webapp.accounts.names`` for what the key is and why. Existing look-alike
names stop the migration with their names listed: rename or merge those
accounts first (``manage.py shell``), then migrate again.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

from webapp.accounts.names import key_function_sql

INDEX = "auth_user_name_look_unique"


def refuse_look_alikes(apps: Any, schema_editor: Any) -> None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT string_agg(username, ', ' ORDER BY username) FROM auth_user "
            "GROUP BY user_name_key(username) HAVING count(*) > 1"
        )
        clashes = [row[0] for row in cursor.fetchall()]
    if clashes:
        raise RuntimeError(
            "user names that look alike must be one account; rename or merge these first: "
            + "; ".join(clashes)
        )


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0005_database_cache"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.RunSQL(key_function_sql(), "DROP FUNCTION IF EXISTS user_name_key(text)"),
        migrations.RunPython(refuse_look_alikes, migrations.RunPython.noop),
        migrations.RunSQL(
            f"CREATE UNIQUE INDEX {INDEX} ON auth_user (user_name_key(username))",
            f"DROP INDEX IF EXISTS {INDEX}",
        ),
    ]
