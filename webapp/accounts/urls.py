from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from webapp.accounts import members, project_views, views

app_name = "accounts"
urlpatterns = [
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(success_url=reverse_lazy("accounts:password_change_done")),
        name="password_change",
    ),
    path("password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path(
        "password/reset/",
        views.ThrottledPasswordResetView.as_view(
            success_url=reverse_lazy("accounts:password_reset_done"),
            email_template_name="registration/password_reset_email.txt",
        ),
        name="password_reset",
    ),
    path("password/reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            success_url=reverse_lazy("accounts:password_reset_complete")
        ),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/complete/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("projects/", views.projects, name="projects"),
    path("projects/new", project_views.new_project, name="new-project"),
    path("projects/<slug:slug>/members/", members.members, name="members"),
    path("projects/<slug:slug>/members/add", members.add_member, name="add-member"),
    path("projects/<slug:slug>/members/<int:member_id>/role", members.change_role, name="member-role"),
    path("projects/<slug:slug>/members/<int:member_id>/remove", members.remove_member, name="remove-member"),
    path("projects/<slug:slug>/tokens/", views.tokens, name="tokens"),
    path("projects/<slug:slug>/tokens/new", views.create_token, name="create-token"),
    path("projects/<slug:slug>/tokens/<int:token_id>/revoke", views.revoke_token, name="revoke-token"),
]
