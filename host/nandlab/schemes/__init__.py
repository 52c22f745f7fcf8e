"""In-flash computing schemes (layer 3): one module per paper, a common interface.

`nandlab.schemes.base` defines the interface (operand locations, plans, results);
`nandlab.schemes.expr` parses expressions; `nandlab.schemes.reference` evaluates
them on the host; `nandlab.schemes.compute` runs one with a chosen scheme.
"""
