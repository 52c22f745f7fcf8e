# generated from boards/kcu105-fmc-nand.yaml by nandlab.hwgen.xdc, do not edit
# board kcu105-fmc-nand, part xcku040-ffva1156-2-e

set_property -dict {PACKAGE_PIN W23 IOSTANDARD SSTL18_I} [get_ports {nand_dq[0]}]
set_property ODT RTT_48 [get_ports {nand_dq[0]}]
set_property -dict {PACKAGE_PIN W24 IOSTANDARD SSTL18_I} [get_ports {nand_dq[1]}]
set_property ODT RTT_48 [get_ports {nand_dq[1]}]
set_property -dict {PACKAGE_PIN W25 IOSTANDARD SSTL18_I} [get_ports {nand_dq[2]}]
set_property ODT RTT_48 [get_ports {nand_dq[2]}]
set_property -dict {PACKAGE_PIN Y25 IOSTANDARD SSTL18_I} [get_ports {nand_dq[3]}]
set_property ODT RTT_48 [get_ports {nand_dq[3]}]
set_property -dict {PACKAGE_PIN AA22 IOSTANDARD SSTL18_I} [get_ports {nand_dq[4]}]
set_property ODT RTT_48 [get_ports {nand_dq[4]}]
set_property -dict {PACKAGE_PIN AB22 IOSTANDARD SSTL18_I} [get_ports {nand_dq[5]}]
set_property ODT RTT_48 [get_ports {nand_dq[5]}]
set_property -dict {PACKAGE_PIN W28 IOSTANDARD SSTL18_I} [get_ports {nand_dq[6]}]
set_property ODT RTT_48 [get_ports {nand_dq[6]}]
# TODO nand_dq[7]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_cle: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_ale: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_we_n: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_re_n: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_re_c: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_dqs: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_dqs_c: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_wp_n: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_ce_n[0]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_ce_n[1]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_ce_n[2]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_ce_n[3]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_rb_n[0]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_rb_n[1]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_rb_n[2]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_rb_n[3]: package pin not in boards/kcu105-fmc-nand.yaml yet

# NV-DDR2 at VccQ 1.8 V: SSTL-18 inputs compare with VccQ / 2
set_property INTERNAL_VREF 0.90 [get_iobanks -of_objects [get_ports {nand_dq[0]}]]
