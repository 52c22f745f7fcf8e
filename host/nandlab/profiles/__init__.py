"""Chip profiles (contract 3): schema, built-in virtual profiles, loading."""

from nandlab.profiles.loader import builtin_names, load_profile
from nandlab.profiles.model import Profile

__all__ = ["Profile", "builtin_names", "load_profile"]
