"""RTL simulation of the FPGA controller: the cocotb / Verilator environment, the pin-level
adapter that puts virtual dies on the ONFI pins, and the RTL server the rtl:// transport
talks to.
"""
