"""The demo campaign: raw files generated to reproduce the seed studies' published figures."""
