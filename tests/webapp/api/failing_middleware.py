"""A middleware that always fails: stands in for a bug outside the API's views in one test."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse


class Fail:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        raise RuntimeError("boom")
