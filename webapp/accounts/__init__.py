"""Accounts: sign-in, passwords, projects with roles, and agent tokens."""
