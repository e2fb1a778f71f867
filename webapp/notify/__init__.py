"""Notifications: when a stored upload changes a series' answers, tell the project.

``trigger`` schedules one recomputation per campaign after its upload is
stored; ``tasks`` recomputes the series history (``webapp.analysis.history``),
and when the campaign's set of significant changes differs from the one last
notified, records a ``Notice`` and delivers it: a signed webhook
(``webhook``, ``signing``) and e-mail to subscribed members (``mail``), each
attempt logged (``Attempt``), retried with backoff. Owners configure it on the
dashboard (``views``). See docs/notifications.md.
"""
