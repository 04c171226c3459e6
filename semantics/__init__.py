"""The semantics matrix: what copy-related PyTorch operations do, measured on each device.

``catalogue`` defines each operation once with the facts the site states about it,
``probe`` measures those facts on a device, ``check`` compares the two, and
``python -m semantics`` runs it all on the reader's own machine.
"""
