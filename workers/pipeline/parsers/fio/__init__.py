"""fio results written with ``--output-format=json`` (fio 2.x and 3.x).

What is read and what comes out is described in :mod:`.parser`; ``document``
finds the JSON document in the file, ``times`` when the run started, and
``records`` turns jobs into measurements.
"""

from workers.pipeline.parsers.fio.parser import FioJsonParser

__all__ = ["FioJsonParser"]
