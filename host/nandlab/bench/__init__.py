"""A bench: a transport plus declared roles (power monitor, thermal chamber, time source,
fault injector, firmware loops) as typing Protocols, and the snapshot every run records
about it.
"""
