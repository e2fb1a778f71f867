"""The OpenAPI request bodies of ``POST /api/v1/samples`` and ``/timings``.

Those endpoints read their body as a stream (webapp/api/batches.py), so
django-ninja sees no body parameter; these JSON Schemas, given as the
operations' ``openapi_extra``, describe what the stream check and the
parsers (workers/pipeline/parsers/samples_json.py, timings/) accept.
"""

from __future__ import annotations

from typing import Any

from workers.pipeline.parsers.timings import UNITS_TO_MS

SCENARIO: dict[str, Any] = {
    "type": "object",
    "description": 'Scenario dimensions, e.g. {"smb_dialect": "3.02", "av": "off"}; keys the campaign declares',
    "additionalProperties": {"type": ["string", "number"]},
}

COMMON: dict[str, Any] = {
    "campaign": {"type": "string", "description": "campaign slug"},
    "host": {"type": "string", "description": "the machine the values come from"},
    "role": {"type": "string", "enum": ["client", "server"], "default": "client"},
    "scenario": SCENARIO,
    "run": {"type": "string", "description": "run name: batches with the same name join one run"},
    "timezone": {
        "type": "string",
        "description": "IANA zone for times without an offset, e.g. Europe/Berlin",
    },
}

SAMPLE: dict[str, Any] = {
    "type": "object",
    "required": ["time", "value"],
    "properties": {
        "time": {"type": "string", "format": "date-time"},
        "counter": {
            "type": "string",
            "description": "full perfmon path \\\\HOST\\Object(Instance)\\Counter, or the counter name "
            "when object is given",
        },
        "object": {"type": "string", "description": "e.g. Processor (instead of a full counter path)"},
        "instance": {"type": "string", "description": "e.g. _Total"},
        "counter_name": {"type": "string", "description": "e.g. % Processor Time"},
        "value": {"type": "number"},
    },
}

TIMING: dict[str, Any] = {
    "type": "object",
    "required": ["name", "started_at", "duration_ms"],
    "properties": {
        "name": {"type": "string", "description": "what was timed, e.g. logon or Excel launch"},
        "started_at": {"type": "string", "format": "date-time"},
        "duration_ms": {"type": "number", "minimum": 0},
        "unit": {"type": "string", "enum": list(UNITS_TO_MS), "default": "ms"},
        "repetition": {"type": "integer", "minimum": 1},
        "users": {
            "type": "integer",
            "minimum": 0,
            "description": "active user sessions when it was measured; places the timing on capacity's "
            "user axis instead of the load step its started_at falls in",
        },
        "subject": {"type": "string"},
        "scenario": SCENARIO,
        "host": {"type": "string"},
        "tags": {"type": "object", "description": "accepted, not stored"},
    },
}


def batch_body(
    key: str, item: dict[str, Any], required: list[str], example: dict[str, Any]
) -> dict[str, Any]:
    """``openapi_extra`` for a batch endpoint: a JSON object with the common fields and the ``key`` list."""
    schema = {
        "type": "object",
        "required": ["campaign", *required, key],
        "properties": {**COMMON, key: {"type": "array", "minItems": 1, "items": item}},
    }
    content = {"schema": schema, "example": example}
    return {
        "requestBody": {
            "required": True,
            "description": "JSON (Content-Encoding: gzip accepted)",
            "content": {"application/json": content},
        }
    }


SAMPLES_BODY = batch_body(
    "samples",
    SAMPLE,
    ["host"],
    {
        "campaign": "smb-study",
        "host": "FS01",
        "role": "server",
        "scenario": {"smb_dialect": "3.02"},
        "run": "run-1",
        "samples": [
            {
                "time": "2015-06-01T10:00:00Z",
                "counter": "\\\\FS01\\Processor(_Total)\\% Processor Time",
                "value": 12.5,
            }
        ],
    },
)

TIMINGS_BODY = batch_body(
    "timings",
    TIMING,
    [],
    {
        "campaign": "smb-study",
        "host": "CLIENT01",
        "scenario": {"smb_dialect": "3.02"},
        "run": "run-1",
        "timings": [
            {"name": "logon", "started_at": "2015-06-01T10:00:00Z", "duration_ms": 5120, "repetition": 1}
        ],
    },
)
