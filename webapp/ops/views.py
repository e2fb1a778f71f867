"""``GET /metrics``: the Prometheus exposition, for a scraper that sends the token.

The endpoint is off (404) unless ``HEADROOM_METRICS_TOKEN`` is set, and then
answers only ``Authorization: Bearer <token>`` (401 otherwise). A token rather
than an address allow-list: behind a proxy or in a container network the
client address is the proxy's, and Prometheus sends bearer tokens natively
(``authorization: {credentials_file: ...}`` in its scrape config).
"""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client.exposition import choose_encoder

from webapp.ops.metrics import REGISTRY


def _authorised(request: HttpRequest, token: str) -> bool:
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    token: str = settings.METRICS_TOKEN
    if not token:
        raise Http404("metrics are disabled: set HEADROOM_METRICS_TOKEN")
    if not _authorised(request, token):
        response = HttpResponse("send 'Authorization: Bearer <HEADROOM_METRICS_TOKEN>'\n", status=401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        response["Content-Type"] = "text/plain; charset=utf-8"
        return response
    # Prometheus' Accept header picks OpenMetrics or the classic text format.
    encode, content_type = choose_encoder(request.headers.get("Accept", ""))
    return HttpResponse(encode(REGISTRY), content_type=content_type)
