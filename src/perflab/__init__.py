"""perflab: a reproducible performance lab for cloud-native Java frameworks."""

__version__ = "0.1.0"
