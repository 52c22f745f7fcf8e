"""The virtual NAND die: cell array physics (`array`) and, above it, the die."""

from nandlab.vchip.array import ArrayResult, CellArray

__all__ = ["ArrayResult", "CellArray"]
