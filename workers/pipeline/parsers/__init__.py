"""Built-in parsers: one subpackage per tool (a single module for a small format).

``base`` holds the protocol every parser implements and ``common`` the helpers
several parsers share; a parser imports nothing else of this package. Which
parsers are in use, and in which order detection tries them, is the list in
:mod:`workers.pipeline.registry`.
"""
