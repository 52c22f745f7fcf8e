"""ONFI definitions shared by the chip layer and the virtual die.

This is not a layer: it holds the facts of the ONFI standard (command bytes,
status bits, SDR timing tables, the parameter page layout and its CRC) so the
host side that speaks ONFI and the virtual die that answers it agree by
construction.
"""
