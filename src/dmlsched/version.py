"""The package version, in a module of its own so that any module can read it
without importing the root package (which imports the public API)."""

__version__ = "0.1.0"
