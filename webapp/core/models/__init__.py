"""Domain models, one module per resource."""

from webapp.core.models.campaigns import DIMENSIONS, Campaign, Scenario
from webapp.core.models.hosts import Host, Run, RunStep
from webapp.core.models.limits import DEFAULT_LIMITS, ResourceLimit
from webapp.core.models.notes import Note
from webapp.core.models.ops import WorkerHeartbeat
from webapp.core.models.series import Series
from webapp.core.models.tenancy import Membership, Project
from webapp.core.models.tokens import AgentToken
from webapp.core.models.uploads import Upload

__all__ = [
    "DEFAULT_LIMITS",
    "DIMENSIONS",
    "AgentToken",
    "Campaign",
    "Host",
    "Membership",
    "Note",
    "Project",
    "ResourceLimit",
    "Run",
    "RunStep",
    "Scenario",
    "Series",
    "Upload",
    "WorkerHeartbeat",
]
