"""Analyses the views are built on: capacity (users before saturation) and scenario comparison."""
