"""Operating Headroom: JSON logs, the Prometheus metrics endpoint and campaign archives."""
