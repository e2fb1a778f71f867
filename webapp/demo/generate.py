"""The demo campaign "Folder Redirection 2015", as the raw files a tester would upload.

Nothing here touches Django or the database: :func:`demo_campaign` returns the
bytes an agent would send (perfmon CSVs from the file server, timing files from
the clients) plus the upload metadata, so the demo enters through the real
ingest path and the dashboard recomputes the seed studies' published figures
(``shared/reference/seed_tables.md``) from raw data:

* FSCT capacity runs (seed 001): one server perfmon CSV per scenario, 100 to
  1,000 users in ten 10-minute steps, with the orderings the study reports;
* application launch under folder redirection (seed 002): five repetitions per
  app and scenario whose means give the published factors exactly;
* continuous-availability vs ordinary shares (seed 004): the published
  "non-CA faster by" ratios, exactly, as ratios of means;
* robocopy vs Storage Replica (seed 003): the published times to complete;
* logon over SMB 2.1 vs SMB 3.02 (seed 000): ten logons each, no significant
  difference;
* DiskSpd over SMB 2.1 vs SMB 3.02 by block size (seed 000): one DiskSpd text
  report per server and hypervisor power profile, a sweep of six block sizes
  appended to one file as a loop of ``diskspd`` calls writes it. No difference
  between the dialects in high-performance mode; in balanced mode 4 KiB and
  8 KiB throughput drops, more for SMB 2.1, whose reads slow down most.

A second campaign, "Logon load 2015" (slug ``demo-logon``, :func:`logon_load_campaign`),
holds the logon-under-load study (``logon_load``): four load clients time logons
and Word launches inside each load step while the server records its CPU, so
capacity can be read by user experience as well as by counter; and the logon phase
study (``logon_phases``): the same clients' Group Policy, User Profile Service and
Shell-Core events exported as XML, where profile load grows with Folder Redirection.

One module per study (``capacity``, ``app_launch``, ``ca_shares``, ``copies``,
``logons``, ``diskspd``, ``logon_load``, ``logon_phases``), each with its own
``uploads()``; ``timings`` holds what the timing studies share and ``files`` the ``DemoUpload`` they all make.
The output is deterministic: fixed seeds, fixed dates in 2015, no clock.
Durations are built in whole microseconds so a mean of repetitions is exact
to three decimals in milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from webapp.demo import app_launch, ca_shares, capacity, copies, diskspd, logon_load, logon_phases, logons
from webapp.demo.files import DemoUpload

DIMENSIONS = [
    "server_os",
    "smb_dialect",
    "disk_type",
    "av",
    "ca_share",
    "redirection",
    "power_profile",
    "server_cpu_load",
    "study",
    "technique",
    "dataset",
    "options",
]


@dataclass(frozen=True)
class DemoCampaign:
    name: str
    slug: str
    description: str
    dimensions: list[str]
    uploads: list[DemoUpload]
    # Limit rows written with the default ones (``ResourceLimit`` fields); none: the defaults apply unwritten.
    limits: tuple[dict[str, object], ...] = ()


def demo_campaign() -> DemoCampaign:
    """The whole demo campaign; the same bytes on every call."""
    return DemoCampaign(
        name="Folder Redirection 2015",
        slug="demo",
        description=(
            "Demo data reproducing the 2015 folder-redirection studies: FSCT capacity runs of a file "
            "server by Windows Server version / SMB dialect, disk type and anti-virus; application "
            "launch with folders redirected to a busy SMB 1 or SMB 2.1 server; logon over SMB 2.1 "
            "vs 3.02; DiskSpd throughput by block size over SMB 2.1 vs 3.02; continuously available vs "
            "ordinary shares; robocopy vs Storage Replica."
        ),
        dimensions=list(DIMENSIONS),
        uploads=[
            *capacity.uploads(),
            *app_launch.uploads(),
            *ca_shares.uploads(),
            *copies.uploads(),
            *logons.uploads(),
            *diskspd.uploads(),
        ],
    )


LOGON_LOAD_DIMENSIONS = ["server_os", "smb_dialect", "disk_type", "av", "redirection", "study"]


def logon_load_campaign() -> DemoCampaign:
    """The logon-under-load demo campaign; the same bytes on every call."""
    return DemoCampaign(
        name="Logon load 2015",
        slug="demo-logon",
        description=(
            "Demo data: four load clients log on and launch Word while one file server carries 100 to "
            "1,000 users, over SMB 2.1 and SMB 3.02. Logon time binds before CPU over SMB 2.1 and "
            "after it over SMB 3.02. The same clients' logon event logs, exported as XML, break each logon "
            "into phases: profile load grows from 1,800 to 2,600 ms with Folder Redirection."
        ),
        dimensions=list(LOGON_LOAD_DIMENSIONS),
        uploads=[*logon_load.uploads(), *logon_phases.uploads()],
        limits=(logon_load.LOGON_LIMIT,),
    )


def demo_campaigns() -> list[DemoCampaign]:
    """Every demo campaign, in the order ``load_demo`` loads them."""
    return [demo_campaign(), logon_load_campaign()]
