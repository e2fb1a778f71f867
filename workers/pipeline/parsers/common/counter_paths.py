"""Perfmon counter paths: ``\\\\HOST\\Object(Instance)\\Counter`` split into their parts."""

from __future__ import annotations

from workers.pipeline.parsers.common.counter_names import canonical_counter, canonical_object


def split_counter_path(path: str) -> tuple[str, str, str, str] | None:
    """Split a counter path into ``(host, object, instance, counter)``, or ``None`` if malformed.

    Takes ``\\\\HOST\\Object(Instance)\\Counter`` or the host-less
    ``\\Object(Instance)\\Counter`` (host ``""``); the instance is ``""``
    when absent. Object and counter names come back in English where
    :mod:`counter_names` knows the localised ones, as written otherwise.
    """
    if path.startswith("\\\\"):
        host, sep, rest = path[2:].partition("\\")
        if not sep or not host:
            return None
    elif path.startswith("\\"):
        host, rest = "", path[1:]
    else:
        return None
    # Counter names never hold a backslash; instance names can (SMB shares).
    head, sep, counter = rest.rpartition("\\")
    if not sep or not head or not counter:
        return None
    open_paren = head.find("(")
    if open_paren == -1:
        object_name, instance = head, ""
    elif open_paren > 0 and head.endswith(")"):
        object_name, instance = head[:open_paren], head[open_paren + 1 : -1]
    else:
        return None
    english_object = canonical_object(object_name)
    return host, english_object, instance, canonical_counter(english_object, counter)
