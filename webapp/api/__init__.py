"""The versioned JSON API (``/api/v1/``) used by agents, scripts and the dashboard's charts."""
