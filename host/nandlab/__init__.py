"""nandlab: an open NAND flash characterization platform.

Layers, top to bottom: CLI / campaigns, characterization, schemes, chip
(`nandlab.onfi`), op programs (`nandlab.ops`), transports
(`nandlab.transport`), virtual chips (`nandlab.vchip`).
"""

__version__ = "0.1.0"
