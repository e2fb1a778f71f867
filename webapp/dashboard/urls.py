from __future__ import annotations

from django.urls import path

from webapp.dashboard import views

app_name = "dashboard"
urlpatterns = [
    path("", views.home, name="home"),
    path("campaigns/new", views.new_campaign, name="new-campaign"),
    path("campaigns/<slug:slug>/", views.campaign, name="campaign"),
    path("campaigns/<slug:slug>/settings/", views.campaign_settings, name="campaign-settings"),
    path("campaigns/<slug:slug>/capacity/", views.capacity, name="capacity"),
    path("campaigns/<slug:slug>/compare/", views.compare, name="compare"),
    path("campaigns/<slug:slug>/block-size/", views.blocksize, name="blocksize"),
    path("campaigns/<slug:slug>/traces/", views.traces, name="traces"),
    path("campaigns/<slug:slug>/copies/", views.copies, name="copies"),
    path("campaigns/<slug:slug>/uploads/", views.uploads, name="uploads"),
    path("campaigns/<slug:slug>/machines/<int:host_id>/", views.edit_machine, name="edit-machine"),
    path("campaigns/<slug:slug>/notes/new", views.add_campaign_note, name="add-note"),
    path("campaigns/<slug:slug>/notes/<int:note_id>/delete", views.delete_campaign_note, name="delete-note"),
    path("series/<slug:slug>/history/", views.series_history, name="series-history"),
    path("series/<slug:slug>/baseline", views.series_baseline, name="series-baseline"),
    path(
        "campaigns/<slug:slug>/uploads/<int:upload_id>/reparse", views.reparse_upload, name="reparse-upload"
    ),
    path("campaigns/<slug:slug>/uploads/<int:upload_id>/delete", views.delete_upload, name="delete-upload"),
]
