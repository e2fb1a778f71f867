"""Share links: read-only views of one campaign for people without an account."""
