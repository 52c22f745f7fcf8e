"""ONFI command sequences: functions that return op programs (reset, read id, read,
program, erase, features, status, soft-bit, test-mode, MWS, ESP, power-measured ops).
Used by the chip layer, the test-mode layer, the power layer and the RTL testbenches
alike.
"""
