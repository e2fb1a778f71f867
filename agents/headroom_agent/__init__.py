"""headroom-agent: upload results, sample counters and time commands for Headroom.

Every request the agent makes is first written to an on-disk spool exactly as
it will be sent, then delivered; what the server does not accept stays there
and is retried later, so a server outage never loses data.
"""

__version__ = "0.1.0"
