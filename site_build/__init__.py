"""The code that builds and checks the site, by kind.

``config``
    What a build is asked to do, read from the environment before anything runs: the
    device, the site's URL, the command lines, the pip settings, the footer's facts.
    Standard library only, because nox's own interpreter imports it; never torch.
``extensions``
    Sphinx extensions, named in ``conf/conf.py``, and the kernel launcher one of them
    runs as a program.
``gallery``
    The callables Sphinx-Gallery's configuration names.
``svg_figures``, ``figure_messages``
    How every figure is saved (SVG, its text as text), and the words of a figure that
    an edition translates.
``commands``
    Command-line programs: ``python -m site_build.commands.site_links`` (the link
    checker) and ``python -m site_build.commands.inventories`` (the intersphinx
    inventories kept in ``conf/inventories/``).
``tested_versions``
    The version guard of the extensions that patch other libraries' internals: the
    tested versions are the pins of ``constraints.txt``.
``html_urls``, ``page_cells``
    Shared by the above and the tests: the URLs a page loads or links, and the code a
    MyST page runs when checked outside Sphinx.
``translation_report``
    Each edition's translation coverage, as its build reports it, and the check that
    fails while a message is shown in English (``nox -s translation_coverage``).

The measured facts themselves live in the ``semantics`` package beside this one.
"""
