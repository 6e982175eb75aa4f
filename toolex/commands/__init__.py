"""Sub-commands of the ``toolex`` command line (see :mod:`toolex.cli`)."""
