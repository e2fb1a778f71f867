"""Headroom's Django project: settings, URL map and the apps (domain model, API, dashboard)."""
