"""The `nandlab` command line (Click). Only this package prints."""
