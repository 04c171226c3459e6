"""Sphinx extensions of the site, each named in ``conf/conf.py``."""
