"""The table of Django's database cache (``settings.CACHE_TABLE``).

The rate limits count in it when the broker is not Redis (``make run``'s
filesystem broker): shared by every web process, unlike per-process memory.
Created whatever the current configuration, so switching away from Redis
later needs no extra step.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.commands.createcachetable import Command as CreateCacheTable
from django.db import migrations


def create(apps: Any, schema_editor: Any) -> None:
    command = CreateCacheTable()
    command.verbosity = 0
    command.create_table(schema_editor.connection.alias, settings.CACHE_TABLE, False)


def drop(apps: Any, schema_editor: Any) -> None:
    schema_editor.execute(f"DROP TABLE IF EXISTS {schema_editor.quote_name(settings.CACHE_TABLE)}")


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0004_upload_unique_bytes_per_host"),
    ]

    operations = [migrations.RunPython(create, drop)]
