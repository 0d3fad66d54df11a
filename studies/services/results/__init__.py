"""Study results: exclusion (exclusion.py), the analysis run (compute.py), its scheduling
(schedule.py) and simulated participants (simulate.py).

Kept free of imports so the participant flow can import the scheduling hook
without loading the analysis stack (pandas, statsmodels, matplotlib).
"""
