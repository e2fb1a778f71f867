"""The domain model: projects, campaigns, scenarios, hosts, runs, uploads and agent tokens."""
