from __future__ import annotations

from django.urls import path

from webapp.sharing import views

app_name = "sharing"
urlpatterns = [
    path("campaigns/<slug:slug>/shares/", views.listing, name="list"),
    path("campaigns/<slug:slug>/shares/new", views.create, name="create"),
    path("campaigns/<slug:slug>/shares/<int:link_id>/revoke", views.revoke, name="revoke"),
    path("s/<str:token>/", views.shared, name="shared"),
]
