"""Builds and reads profiles (piece set, light, lens) from vision's measurements. Data, not an app."""

from .profile import FORMAT, VERSION, Profile, ProfileError, default_profile, load_profile, save_profile

__all__ = ["FORMAT", "VERSION", "Profile", "ProfileError", "default_profile", "load_profile", "save_profile"]
