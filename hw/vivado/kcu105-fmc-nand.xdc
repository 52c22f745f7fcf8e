# generated from boards/kcu105-fmc-nand.yaml by nandlab.hwgen.xdc, do not edit
# board kcu105-fmc-nand, part xcku040-ffva1156-2-e

set_property -dict {PACKAGE_PIN W23 IOSTANDARD LVCMOS18} [get_ports {nand_dq[0]}]
set_property -dict {PACKAGE_PIN W24 IOSTANDARD LVCMOS18} [get_ports {nand_dq[1]}]
set_property -dict {PACKAGE_PIN W25 IOSTANDARD LVCMOS18} [get_ports {nand_dq[2]}]
set_property -dict {PACKAGE_PIN Y25 IOSTANDARD LVCMOS18} [get_ports {nand_dq[3]}]
set_property -dict {PACKAGE_PIN AA22 IOSTANDARD LVCMOS18} [get_ports {nand_dq[4]}]
set_property -dict {PACKAGE_PIN AB22 IOSTANDARD LVCMOS18} [get_ports {nand_dq[5]}]
set_property -dict {PACKAGE_PIN W28 IOSTANDARD LVCMOS18} [get_ports {nand_dq[6]}]
# TODO nand_dq[7]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_cle: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_ale: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_we_n: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_re_n: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_wp_n: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_ce_n[0]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_ce_n[1]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_ce_n[2]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_ce_n[3]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_rb_n[0]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_rb_n[1]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_rb_n[2]: package pin not in boards/kcu105-fmc-nand.yaml yet
# TODO nand_rb_n[3]: package pin not in boards/kcu105-fmc-nand.yaml yet
