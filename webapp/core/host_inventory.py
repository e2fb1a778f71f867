"""Recording a machine's inventory on its Host: the one write the API's PUT and the dashboard's form share.

The rules (an edit stands over later agent reports, ``memory_mb`` for the limits)
are ``webapp.core.inventory``'s; this module only applies them under a row lock.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from webapp.core import inventory
from webapp.core.models import Host


def record(host_id: int, found: Mapping[str, Any], *, edited: bool) -> Host:
    """Store ``found`` (an already checked inventory) on the host; a person's edit when ``edited``."""
    with transaction.atomic():
        host = Host.objects.select_for_update().get(pk=host_id)
        host.attributes = inventory.apply_inventory(host.attributes, found, edited=edited)
        if not inventory.kept_edited(host.attributes) or edited:
            host.os = inventory.os_text(found) or host.os
        host.save(update_fields=["attributes", "os"])
    return host
