"""``{% can_edit project as editor %}``: whether the signed-in user may change the project (owner or editor).

The navigation shows share links, agent tokens and campaign settings only to
those who may open them (the pages answer 404 to everyone else).
"""

from __future__ import annotations

from typing import Any

from django import template

from webapp.accounts.roles import role_in
from webapp.core.models import Membership, Project

register = template.Library()


@register.simple_tag(takes_context=True)
def can_edit(context: dict[str, Any], project: Project | None) -> bool:
    request = context.get("request")
    if request is None or project is None:
        return False
    return role_in(request.user, project) in (Membership.Role.OWNER, Membership.Role.EDITOR)
