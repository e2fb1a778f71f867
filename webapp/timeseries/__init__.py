"""Time-series tables (counter samples, measurements), their rollups, the timing
summary (``timing_summary``), and the TimescaleDB / plain-PostgreSQL switch (``backend``)."""
