"""Migrations match the models, and the reparse command replaces rows from the raw bytes."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import connection

from tests.ingest import ingest_path
from tests.paths import FIXTURES
from webapp.core.models import Upload


@pytest.mark.django_db
def test_makemigrations_finds_nothing_to_do():
    out = io.StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


@pytest.mark.django_db
def test_the_plain_postgresql_mode_built_a_rollup_table():
    with connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE relname = 'counter_rollup_1m'")
        assert cursor.fetchone() == ("r",)


@pytest.mark.django_db
def test_the_reparse_command_queues_uploads_again(campaign):
    upload = ingest_path(
        campaign, FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv", host="FS01"
    )
    out = io.StringIO()
    call_command("reparse", "--campaign", campaign.slug, stdout=out)
    assert "queued 1 upload(s)" in out.getvalue()
    assert Upload.objects.get(pk=upload.pk).status in ("received", "queued")
    with pytest.raises(Exception, match="name upload ids or --campaign"):
        call_command("reparse")
