"""Shared testbench code: simulator setup, the ONFI pin adapter and timing checker,
the nandlab_ctrl bench, and the programs the RTL tests run (hw/tb/ is on sys.path)."""
