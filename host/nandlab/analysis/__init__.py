"""One measurement vocabulary: bit errors, RBER with its confidence interval, latency and
energy, computed once for schemes, characterization, campaigns, reports and
reproductions.
"""
