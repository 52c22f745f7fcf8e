# nandlab: the board CPU's block design for the KCU105 (docs/firmware.md).
# NOT YET RUN THROUGH VIVADO: written against the IP catalogue's documented
# properties; host/tests/test_cpu_bd_tcl.py checks only that every file it
# reads exists and every module port it connects exists in the RTL.
#
#   vivado -mode batch -source hw/vivado/build.tcl -tclargs kcu105-fmc-nand cpu
#
# build.tcl sources this after set_part, with $rtl (hw/rtl), $here
# (hw/vivado) and $out (the build folder) set. It builds `nandlab_cpu_bd`:
#
#   cpu          PicoRV32 (picorv32_axi from the PyPI package
#                pythondata-cpu-picorv32), rv32imc with rdcycle, as the
#                firmware is built (firmware/Makefile)
#   code_ram     64 KiB at 0x0000_0000, initialised from the firmware ELF
#   shared_ram   16 KiB at 0x3000_0000, true dual port: port B is the host's
#                (BRAM_PORTB, external), for programs, descriptors, the ring
#   M_AXI_CSR    0x4000_0000, 4 KiB: the CSR block with the mailbox
#                (nandlab_regs), as a second master beside the host's
#   M_AXI_SEQ    0x4000_1000, 4 KiB: the stream bridge to the sequencer
#   periph       0x4000_2000, 4 KiB: I2C master and PWM
#                (nandlab_cpu_periph_axil), pins external
#
# What the KCU105 top does not have yet (docs/firmware.md, "Missing on the
# FPGA side"): an instance of this design's wrapper, the CSR block's second
# AXI4-Lite master, the stream bridge and the mux of the sequencer's streams
# between host and CPU, the host's BRAM controller on shared_ram's port B.

set fw_elf [file normalize [file join $here .. .. firmware build nandlab.elf]]
if {![file exists $fw_elf]} { error "no $fw_elf: run make -C firmware first" }
set fw_coe [file join $out nandlab_fw.coe]
# the ELF's 64 KiB BRAM image as a COE file (nandlab.firmware.image)
exec python3 -m nandlab.firmware.image coe $fw_elf $fw_coe

set picorv32_dir [exec python3 -c "import pythondata_cpu_picorv32 as p; print(p.data_location)"]
read_verilog [file join $picorv32_dir picorv32.v]
set cpu_sources {
    nandlab_cpu_regs_pkg.sv
    nandlab_i2c_master.sv
    nandlab_pwm.sv
    nandlab_cpu_periph.sv
    nandlab_cpu_periph_axil.sv
}
foreach f $cpu_sources { read_verilog -sv [file join $rtl $f] }

create_bd_design nandlab_cpu_bd

# clock and reset from the top (the core's clock, axi_aclk)
create_bd_port -dir I -type clk -freq_hz 125000000 clk
create_bd_port -dir I -type rst resetn
set_property CONFIG.POLARITY ACTIVE_LOW [get_bd_ports resetn]

create_bd_cell -type module -reference picorv32_axi cpu
set_property -dict [list \
    CONFIG.COMPRESSED_ISA 1 CONFIG.ENABLE_MUL 1 CONFIG.ENABLE_DIV 1 \
    CONFIG.ENABLE_COUNTERS 1 CONFIG.PROGADDR_RESET 0x00000000 CONFIG.STACKADDR 0x00010000 \
] [get_bd_cells cpu]

create_bd_cell -type ip -vlnv xilinx.com:ip:smartconnect:1.0 xbar
set_property -dict [list CONFIG.NUM_SI 1 CONFIG.NUM_MI 5] [get_bd_cells xbar]

create_bd_cell -type ip -vlnv xilinx.com:ip:axi_bram_ctrl:4.1 code_ctrl
set_property -dict [list CONFIG.PROTOCOL AXI4LITE CONFIG.SINGLE_PORT_BRAM 1] [get_bd_cells code_ctrl]
create_bd_cell -type ip -vlnv xilinx.com:ip:blk_mem_gen:8.4 code_ram
set_property -dict [list CONFIG.Memory_Type Single_Port_RAM CONFIG.Load_Init_File true \
    CONFIG.Coe_File $fw_coe] [get_bd_cells code_ram]

create_bd_cell -type ip -vlnv xilinx.com:ip:axi_bram_ctrl:4.1 shared_ctrl
set_property -dict [list CONFIG.PROTOCOL AXI4LITE CONFIG.SINGLE_PORT_BRAM 1] [get_bd_cells shared_ctrl]
create_bd_cell -type ip -vlnv xilinx.com:ip:blk_mem_gen:8.4 shared_ram
set_property -dict [list CONFIG.Memory_Type True_Dual_Port_RAM] [get_bd_cells shared_ram]

create_bd_cell -type module -reference nandlab_cpu_periph_axil periph
# the peripheral block's reset is active high
create_bd_cell -type ip -vlnv xilinx.com:ip:util_vector_logic:2.0 rst_inv
set_property -dict [list CONFIG.C_OPERATION not CONFIG.C_SIZE 1] [get_bd_cells rst_inv]

# buses
connect_bd_intf_net [get_bd_intf_pins cpu/mem_axi] [get_bd_intf_pins xbar/S00_AXI]
connect_bd_intf_net [get_bd_intf_pins xbar/M00_AXI] [get_bd_intf_pins code_ctrl/S_AXI]
connect_bd_intf_net [get_bd_intf_pins code_ctrl/BRAM_PORTA] [get_bd_intf_pins code_ram/BRAM_PORTA]
connect_bd_intf_net [get_bd_intf_pins xbar/M01_AXI] [get_bd_intf_pins shared_ctrl/S_AXI]
connect_bd_intf_net [get_bd_intf_pins shared_ctrl/BRAM_PORTA] [get_bd_intf_pins shared_ram/BRAM_PORTA]
make_bd_intf_pins_external [get_bd_intf_pins shared_ram/BRAM_PORTB]
make_bd_intf_pins_external [get_bd_intf_pins xbar/M02_AXI]
set_property name M_AXI_CSR [get_bd_intf_ports M02_AXI_0]
make_bd_intf_pins_external [get_bd_intf_pins xbar/M03_AXI]
set_property name M_AXI_SEQ [get_bd_intf_ports M03_AXI_0]
connect_bd_intf_net [get_bd_intf_pins xbar/M04_AXI] [get_bd_intf_pins periph/s_axil]

# clocks, resets
connect_bd_net [get_bd_ports clk] [get_bd_pins cpu/clk] [get_bd_pins xbar/aclk] \
    [get_bd_pins code_ctrl/s_axi_aclk] [get_bd_pins shared_ctrl/s_axi_aclk] [get_bd_pins periph/clk]
connect_bd_net [get_bd_ports resetn] [get_bd_pins cpu/resetn] [get_bd_pins xbar/aresetn] \
    [get_bd_pins code_ctrl/s_axi_aresetn] [get_bd_pins shared_ctrl/s_axi_aresetn] \
    [get_bd_pins rst_inv/Op1]
connect_bd_net [get_bd_pins rst_inv/Res] [get_bd_pins periph/rst]

# I2C (open drain: the top puts an IOBUF on each line, T = !oe, I = 0) and PWM
foreach pin {i2c_scl_i i2c_sda_i i2c_scl_oe i2c_sda_oe pwm_o pwm_cool_o} {
    make_bd_pins_external [get_bd_pins periph/$pin]
}
make_bd_pins_external [get_bd_pins cpu/trap]

# the address map hal_target.c assumes
assign_bd_address -offset 0x00000000 -range 64K [get_bd_addr_segs code_ctrl/S_AXI/Mem0]
assign_bd_address -offset 0x30000000 -range 16K [get_bd_addr_segs shared_ctrl/S_AXI/Mem0]
assign_bd_address -offset 0x40000000 -range 4K [get_bd_addr_segs M_AXI_CSR/Reg]
assign_bd_address -offset 0x40001000 -range 4K [get_bd_addr_segs M_AXI_SEQ/Reg]
assign_bd_address -offset 0x40002000 -range 4K [get_bd_addr_segs periph/s_axil/reg0]

validate_bd_design
save_bd_design
set bd_file [get_files nandlab_cpu_bd.bd]
generate_target all $bd_file
read_verilog [make_wrapper -files $bd_file -top]
