"""Agent tokens: shown once, stored as a SHA-256 digest, scoped to one project.

Tokens are 256 random bits, so a fast digest is enough (no password KDF is
needed against brute force); the digest is the lookup key.
"""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

from webapp.core.models.tenancy import Project

TOKEN_PREFIX = "hr_"


def digest_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class AgentToken(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="agent_tokens")
    name = models.CharField(max_length=100)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    hint = models.CharField(max_length=12, editable=False, help_text="first characters, to recognise it")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}...)"

    @classmethod
    def issue(cls, project: Project, name: str, created_by: object | None = None) -> tuple[AgentToken, str]:
        """Create a token; the plain text is returned once and never stored."""
        plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            project=project,
            name=name,
            digest=digest_token(plain),
            hint=plain[:10],
            created_by=created_by,
        )
        return token, plain

    @classmethod
    def authenticate(cls, plain: str) -> AgentToken | None:
        """The live token for this text, touching ``last_used_at``; None if unknown or revoked."""
        if not plain.startswith(TOKEN_PREFIX):
            return None
        token = cls.objects.filter(digest=digest_token(plain), revoked_at=None).first()
        if token is None:
            return None
        now = timezone.now()
        # Write at most once a minute per token: the agent API is hot.
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            cls.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
        return token

    def revoke(self) -> None:
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])
