# nandlab: the board CPU's part of the KCU105 build (docs/firmware.md).
# NOT YET RUN THROUGH VIVADO (none here): host/tests/test_cpu_tcl.py checks that
# every file it reads exists and that the generic it sets is a parameter of the
# board's top.
#
# The CPU subsystem is RTL, hw/rtl/nandlab_cpu_sys.sv: the same design the
# firmware-in-the-loop harness simulates (firmware/sim/nandlab_fw_soc.sv).
# nandlab_kcu105 instantiates it through nandlab_top_xdma (CPU=1), so it
# needs no block design: PicoRV32 (picorv32.v from the PyPI package
# pythondata-cpu-picorv32, rv32imc with rdcycle, as firmware/Makefile builds)
# and 64 KiB code RAM + 16 KiB shared RAM, which synthesis maps to block RAM.
#
# build.tcl sources this before synth_design, with $rtl (hw/rtl) and $here
# (hw/vivado) set; it leaves $cpu_generics for synth_design: the firmware
# image the code RAM starts with ($readmemh words, make -C firmware).

set fw_hex [file normalize [file join $here .. .. firmware build nandlab.hex]]
if {![file exists $fw_hex]} { error "no $fw_hex: run make -C firmware first" }

set picorv32_dir [exec python3 -c "import pythondata_cpu_picorv32 as p; print(p.data_location)"]
read_verilog [file join $picorv32_dir picorv32.v]

set cpu_generics [list -generic "CODE_HEX=\"$fw_hex\""]
