from __future__ import annotations

from django.urls import path

from webapp.dashboard import views

app_name = "dashboard"
urlpatterns = [
    path("", views.home, name="home"),
    path("campaigns/<slug:slug>/", views.campaign, name="campaign"),
    path("campaigns/<slug:slug>/uploads/", views.uploads, name="uploads"),
    path(
        "campaigns/<slug:slug>/uploads/<int:upload_id>/reparse", views.reparse_upload, name="reparse-upload"
    ),
    path("campaigns/<slug:slug>/uploads/<int:upload_id>/delete", views.delete_upload, name="delete-upload"),
]
