"""Sub-commands of the ``toolex`` command line (see :mod:`toolex.cli`).

A command imports its work inside ``run``: ``toolex --help`` imports every command module to list it, so a
module-level import of pandas, the data layer or a model would slow every command (the one place where
:mod:`toolex.layers` allows toolex imports inside functions).
"""
