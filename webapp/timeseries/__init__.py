"""Time-series tables (counter samples, measurements), their rollups, and the
TimescaleDB / plain-PostgreSQL switch (``backend``)."""
