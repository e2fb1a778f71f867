"""Django admin for the core models: staff tooling next to the dashboard.

Uploads are shown, not edited: the pipeline owns their status (re-parse them
with ``manage.py reparse``). Agent tokens can be listed, renamed and revoked,
never created here: ``manage.py create_agent_token`` prints the plain token
once, and only its digest is stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from webapp.core.models import (
    AgentToken,
    Campaign,
    Host,
    Membership,
    Project,
    ResourceLimit,
    Run,
    RunStep,
    Scenario,
    Upload,
    WorkerHeartbeat,
)

if TYPE_CHECKING:
    from django.contrib.admin import ModelAdmin, TabularInline
else:
    # django-stubs declares the admin classes generic (ModelAdmin[Project]), but
    # Django's take no type arguments at runtime; django-stubs-ext, which would
    # add them, is a development-only dependency.
    class ModelAdmin(admin.ModelAdmin):
        def __class_getitem__(cls, _params: Any) -> type:
            return cls

    class TabularInline(admin.TabularInline):
        def __class_getitem__(cls, _params: Any) -> type:
            return cls


admin.site.site_header = "Headroom administration"
admin.site.site_title = "Headroom admin"
# Django's own admin/index.html comes first in the template search path
# (django.contrib.admin precedes webapp.core), so the index that shows the
# time-series storage has its own name.
admin.site.index_template = "admin/headroom_index.html"


class MembershipInline(TabularInline[Membership, Project]):
    model = Membership
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Project)
class ProjectAdmin(ModelAdmin[Project]):
    list_display = ["name", "slug", "created_at"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline]


class NaturalKeyAdmin(ModelAdmin[Any]):
    """Fields that say which row an agent's upload belongs to cannot change once the row exists.

    Agents name campaigns, runs and hosts; each web process remembers the ids
    it resolved (``webapp.core.placements``), and moving or renaming the row
    under them would file uploads in the wrong place.
    """

    natural_key: tuple[str, ...] = ()

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fixed = self.natural_key if obj is not None else ()
        return (*super().get_readonly_fields(request, obj), *fixed)


class ResourceLimitInline(TabularInline[ResourceLimit, Campaign]):
    """The campaign's limit table (docs/limits.md); empty = the defaults."""

    model = ResourceLimit
    extra = 0


@admin.register(Campaign)
class CampaignAdmin(NaturalKeyAdmin):
    list_display = ["name", "slug", "project", "created_at"]
    list_filter = ["project"]
    list_select_related = ["project"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    natural_key = ("project",)
    inlines = [ResourceLimitInline]
    actions = ["write_default_limits"]

    @admin.action(description="Write the default limits (to edit them)")
    def write_default_limits(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        written = sum(ResourceLimit.write_defaults(found) for found in queryset)
        self.message_user(request, f"Wrote {written} limit(s).")


@admin.register(ResourceLimit)
class ResourceLimitAdmin(ModelAdmin[ResourceLimit]):
    list_display = ["campaign", "resource", "counter", "above", "threshold", "percent", "enabled"]
    list_filter = ["resource", "enabled", "campaign"]
    list_select_related = ["campaign"]
    list_editable = ["threshold", "percent", "enabled"]


@admin.register(Scenario)
class ScenarioAdmin(ModelAdmin[Scenario]):
    list_display = ["label", "campaign"]
    list_filter = ["campaign", "server_os", "smb_dialect", "disk_type", "av"]
    list_select_related = ["campaign"]
    search_fields = ["key", "server_os", "smb_dialect", "disk_type", "av", "redirection"]
    # The key is a hash of the dimension values; editing it would orphan the scenario.
    readonly_fields = ["key"]

    @admin.display(description="dimensions")
    def label(self, obj: Scenario) -> str:
        return obj.label


@admin.register(Host)
class HostAdmin(NaturalKeyAdmin):
    # The inventory (attributes "inventory", "memory_mb") is edited in the attributes field: mark a
    # correction with "source": "edited" so the agent's next report does not undo it.
    list_display = ["name", "project", "role", "os", "summary"]
    natural_key = ("project", "name")
    list_filter = ["role", "project"]
    list_select_related = ["project"]
    search_fields = ["name", "os"]


class RunStepInline(TabularInline[RunStep, Run]):
    model = RunStep
    extra = 0


@admin.register(Run)
class RunAdmin(NaturalKeyAdmin):
    list_display = ["name", "campaign", "scenario", "tool", "started_at", "ended_at"]
    natural_key = ("campaign", "scenario", "name")
    list_filter = ["campaign", "tool"]
    list_select_related = ["campaign", "scenario"]
    search_fields = ["name"]
    raw_id_fields = ["scenario"]
    autocomplete_fields = ["hosts"]
    inlines = [RunStepInline]


@admin.register(Upload)
class UploadAdmin(ModelAdmin[Upload]):
    list_display = ["id", "filename", "campaign", "status", "parser", "rows", "error_message", "received_at"]
    list_filter = ["status", "parser", "kind", "campaign"]
    list_select_related = ["campaign"]
    search_fields = ["filename", "sha256"]
    date_hierarchy = "received_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Upload | None = None) -> bool:
        return False

    @admin.display(description="error")
    def error_message(self, obj: Upload) -> str:
        if not obj.error:
            return ""
        if isinstance(obj.error, dict):
            return str(obj.error.get("message", obj.error))[:200]
        return str(obj.error)[:200]


@admin.register(AgentToken)
class AgentTokenAdmin(ModelAdmin[AgentToken]):
    list_display = ["name", "project", "hint", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["project", ("revoked_at", admin.EmptyFieldListFilter)]
    list_select_related = ["project"]
    search_fields = ["name", "hint"]
    fields = ["name", "project", "hint", "digest", "created_by", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = ["project", "hint", "digest", "created_by", "created_at", "last_used_at", "revoked_at"]
    actions = ["revoke"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Revoke selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[AgentToken]) -> None:
        tokens = list(queryset.filter(revoked_at=None))
        for token in tokens:
            token.revoke()
        self.message_user(request, f"Revoked {len(tokens)} token(s).")


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(ModelAdmin[WorkerHeartbeat]):
    list_display = ["hostname", "seen_at"]
    ordering = ["-seen_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: WorkerHeartbeat | None = None) -> bool:
        return False
