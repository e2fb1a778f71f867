"""Helpers several parsers share: one place each for what is really the same across tools.

``zones`` reads the upload's timezone, ``messages`` shows a bad value in an error,
``counter_names`` and ``counter_paths`` are perfmon's counter naming (perfmon logs
and the agents' live samples both use it). Tool-specific helpers stay in the tool's
own subpackage.
"""
