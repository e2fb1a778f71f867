"""The ingest pipeline: detect -> decode -> parse -> validate -> normalise -> load.

Every stage is a small module with a typed hand-off (see ``records``). Only
``load`` touches the database; everything before it is pure and streaming.
"""
