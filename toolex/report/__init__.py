"""The research-notebook layer: main results, significance, rank CDF, illusion share, export and the runner.

Notebooks stay thin: they load settings, call these functions and show what comes back.
"""
