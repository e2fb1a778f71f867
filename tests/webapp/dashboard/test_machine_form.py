"""Correcting a machine's inventory on the dashboard: the campaign page lists it, the form saves an edit
that the limits read and later agent reports do not undo, and bad figures save nothing."""

from __future__ import annotations

import pytest

from tests.factories import make_token, make_user
from tests.webapp.api.test_host_inventory import INVENTORY, put
from webapp.core.inventory import link_speeds
from webapp.core.models import Host, Run, Scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def machine(client, campaign):
    """FS01 as its agent reported it (2 vCPU, 4 GB, a 1 Gbit/s adapter), a server of one of the campaign's runs."""
    _, token = make_token(campaign.project)
    response = put(client, "FS01", {"campaign": campaign.slug, "role": "server", **INVENTORY}, token)
    assert response.status_code == 200, response.content
    host = Host.objects.get(project=campaign.project, name="FS01")
    run = Run.objects.create(campaign=campaign, scenario=Scenario.for_dims(campaign, {}), name="r1")
    run.hosts.add(host)
    return host, token


def form(**changes: str) -> dict[str, str]:
    """The form as it comes prefilled for FS01, with ``changes``."""
    values: dict[str, str] = {
        "os": str(INVENTORY["os"]),
        "os_version": str(INVENTORY["os_version"]),
        "cpu_model": str(INVENTORY["cpu_model"]),
        "sockets": "1",
        "cores": "2",
        "logical_processors": "2",
        "memory_gb": "4",
        "nic_rows": "2",
        "nic-0-name": "Ethernet 2",
        "nic-0-description": "Intel[R] 82574L",
        "nic-0-speed_gbps": "1",
        "nic-1-name": "",
        "nic-1-description": "",
        "nic-1-speed_gbps": "",
    }
    return {**values, **changes}


def test_the_campaign_page_lists_the_machine_and_the_form_shows_its_inventory(client, campaign, machine):
    host, _ = machine
    client.force_login(make_user(campaign.project, role="editor"))
    page = client.get(f"/campaigns/{campaign.slug}/").content.decode()
    assert "FS01" in page and "2 vCPU, 4 GB" in page
    title = page[page.index("<title>") + 7 : page.index("</title>")]
    assert title.startswith(campaign.name) and "<" not in title  # the page's sections stay out of its title
    assert page.count("<h2>Machines</h2>") == 1
    url = f"/campaigns/{campaign.slug}/machines/{host.pk}/"
    assert url in page
    shown = client.get(url)
    assert shown.status_code == 200
    text = shown.content.decode()
    assert 'name="memory_gb" maxlength="16" value="4"' in text
    assert 'name="nic-0-name" maxlength="255" value="Ethernet 2"' in text
    assert 'name="nic-0-speed_gbps" maxlength="16" value="1"' in text
    assert "As its agent reported it" in text


def test_a_correction_is_stored_read_by_the_limits_and_kept_over_agent_reports(client, campaign, machine):
    host, token = machine
    client.force_login(make_user(campaign.project, role="editor"))
    url = f"/campaigns/{campaign.slug}/machines/{host.pk}/"
    posted = form(
        logical_processors="8",
        cores="4",
        memory_gb="6.5",
        **{"nic-0-speed_gbps": "25", "nic-1-name": "Ethernet 3", "nic-1-speed_gbps": "10"},
    )
    response = client.post(url, posted)
    assert response.status_code == 302, response.content.decode()[:2000]
    host.refresh_from_db()
    assert host.summary == "8 vCPU, 6.5 GB"
    assert host.attributes["memory_mb"] == 6656  # 6.5 x 1024: what the memory limit reads
    assert host.attributes["inventory"]["source"] == "edited"
    assert link_speeds(host.attributes) == {"Ethernet 2": 25e9, "Intel[R] 82574L": 25e9, "Ethernet 3": 10e9}
    assert host.attributes["inventory"]["disks"] == INVENTORY["disks"]  # kept as reported
    page = client.get(f"/campaigns/{campaign.slug}/").content.decode()
    assert "FS01: inventory saved (8 vCPU, 6.5 GB)" in page

    # The next upload session's report does not undo it.
    assert put(client, "FS01", {"campaign": campaign.slug, **INVENTORY}, token).status_code == 200
    host.refresh_from_db()
    assert host.summary == "8 vCPU, 6.5 GB"
    assert host.attributes["inventory_reported"]["memory_mb"] == 4096


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"cores": "four"}, "Cores: a number, not 'four'"),
        ({"sockets": "1.5"}, "Sockets: a whole number, not '1.5'"),
        ({"memory_gb": "0"}, "Memory (GB; stored in MiB): input should be greater than or equal to 1"),
        ({"nic-0-speed_gbps": "fast"}, "Link speed of Ethernet 2: a number, not 'fast'"),
        ({"nic-1-speed_gbps": "10"}, "Adapters: a row with a speed or model needs the adapter's name"),
        ({"logical_processors": "0"}, "Logical processors: input should be greater than or equal to 1"),
    ],
)
def test_a_bad_figure_is_named_and_nothing_is_saved(client, campaign, machine, changes, named):
    host, _ = machine
    before = host.attributes
    client.force_login(make_user(campaign.project, role="editor"))
    response = client.post(f"/campaigns/{campaign.slug}/machines/{host.pk}/", form(**changes))
    assert response.status_code == 400
    body = response.content.decode().replace("&#x27;", "'")
    assert named in body
    for value in changes.values():  # what was typed is shown again, to be fixed
        assert f'value="{value}"' in body
    host.refresh_from_db()
    assert host.attributes == before


def test_only_owners_and_editors_may_correct(client, campaign, machine):
    host, _ = machine
    url = f"/campaigns/{campaign.slug}/machines/{host.pk}/"
    assert client.get(url).status_code == 302  # to the sign-in page
    client.force_login(make_user(campaign.project, role="viewer"))
    assert "/machines/" not in client.get(f"/campaigns/{campaign.slug}/").content.decode()
    assert client.get(url).status_code == 404
    assert client.post(url, form(cores="64")).status_code == 404
    host.refresh_from_db()
    assert host.attributes["inventory"]["cores"] == 2
