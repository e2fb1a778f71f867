"""The dashboard: server-rendered pages that draw charts from the v1 API."""
