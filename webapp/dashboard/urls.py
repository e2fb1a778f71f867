from __future__ import annotations

from django.urls import path

from webapp.dashboard import views

app_name = "dashboard"
urlpatterns = [
    path("", views.home, name="home"),
    path("campaigns/<slug:slug>/", views.campaign, name="campaign"),
    path("campaigns/<slug:slug>/uploads/", views.uploads, name="uploads"),
]
