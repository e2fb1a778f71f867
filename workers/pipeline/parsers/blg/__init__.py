"""Binary perfmon logs (``.blg``): recognised by their header and answered with the ``relog`` command."""

from workers.pipeline.parsers.blg.parser import BlgParser

__all__ = ["BlgParser"]
