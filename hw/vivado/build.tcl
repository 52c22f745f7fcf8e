# nandlab: non-project Vivado build of one board.
#   vivado -mode batch -source hw/vivado/build.tcl -tclargs kcu105-fmc-nand
# Reads the shared RTL, the board's top and generated XDC, creates the XDMA
# IP, adds the board CPU (kcu105/cpu.tcl: PicoRV32 and its firmware image,
# docs/firmware.md; not yet run through Vivado), then synth / opt / place /
# route / bitstream into hw/vivado/out/<board>/.

set board [lindex $argv 0]
if {$board eq ""} { set board kcu105-fmc-nand }
set here [file dirname [file normalize [info script]]]
set rtl [file join $here .. rtl]
set out [file join $here out $board]
file mkdir $out

# board settings: part, top, board folder
switch -- $board {
    kcu105-fmc-nand {
        set part xcku040-ffva1156-2-e
        set top nandlab_kcu105
        set board_dir [file join $here kcu105]
    }
    default { error "unknown board $board" }
}

# shared RTL (packages first)
set rtl_sources {
    nandlab_ops_pkg.sv
    nandlab_timing_pkg.sv
    nandlab_regs_pkg.sv
    nandlab_cpu_regs_pkg.sv
    nandlab_regs.sv
    nandlab_pattern_gen.sv
    nandlab_err_counter.sv
    nandlab_udiv.sv
    nandlab_seq_decode.sv
    nandlab_seq_rsp.sv
    nandlab_seq.sv
    nandlab_ddr_io.sv
    nandlab_onfi_phy.sv
    nandlab_timing_sel.sv
    nandlab_core.sv
    nandlab_ctrl.sv
    nandlab_axis_64to32.sv
    nandlab_axis_32to64.sv
    nandlab_i2c_master.sv
    nandlab_pwm.sv
    nandlab_cpu_periph.sv
    nandlab_cpu_sys.sv
    nandlab_cpu_bar.sv
    nandlab_top_xdma.sv
}
foreach f $rtl_sources { read_verilog -sv [file join $rtl $f] }
read_verilog -sv [file join $board_dir nandlab_kcu105.sv]
read_xdc [file join $here kcu105-fmc-nand.xdc]

# XDMA IP: Gen2 x4, 64-bit AXI-Stream, 125 MHz axi_aclk, AXI-Lite user BAR
set_part $part
create_ip -name xdma -vendor xilinx.com -library ip -module_name xdma_0 -dir $out
set_property -dict [list \
    CONFIG.mode_selection {Advanced} \
    CONFIG.pl_link_cap_max_link_width {X4} \
    CONFIG.pl_link_cap_max_link_speed {5.0_GT/s} \
    CONFIG.axi_data_width {64_bit} \
    CONFIG.axisten_freq {125} \
    CONFIG.xdma_axi_intf_mm {AXI_Stream} \
    CONFIG.axilite_master_en {true} \
    CONFIG.axilite_master_size {4} \
    CONFIG.xdma_rnum_chnl {1} \
    CONFIG.xdma_wnum_chnl {1} \
] [get_ips xdma_0]
generate_target all [get_ips xdma_0]
synth_ip [get_ips xdma_0]
source [file join $board_dir cpu.tcl]

synth_design -top $top -part $part -include_dirs [file join $rtl include] {*}$cpu_generics
write_checkpoint -force [file join $out post_synth.dcp]
opt_design
place_design
phys_opt_design
route_design
report_timing_summary -file [file join $out timing.rpt]
report_utilization -file [file join $out utilization.rpt]
write_checkpoint -force [file join $out post_route.dcp]
write_bitstream -force [file join $out $board.bit]
