"""Errors a user can fix: the CLI prints them as one line and exits with code 2."""


class UserError(Exception):
    """Bad input: a message naming the file, the key and what is allowed."""


class VariantError(UserError):
    """A variant file that cannot be loaded or does not fit its game's schema."""
