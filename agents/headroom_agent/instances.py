"""Instance names as perfmon writes them in a counter path, shared by sampling and the inventory."""

from __future__ import annotations

# perfmon cannot hold these in an instance name and writes the replacement instead.
_PERFMON_INSTANCE = str.maketrans("()#/\\", "[]___")


def perfmon_instance(name: str) -> str:
    """``vEthernet (Default Switch)`` -> ``vEthernet [Default Switch]``: no parentheses, ``#`` or slashes."""
    return name.translate(_PERFMON_INSTANCE)
