"""Sphinx configuration of the PyTorch copy-semantics site.

Declarative on purpose: logic lives in the ``site_build`` package (installed with the
project, as ``nox -s docs`` does) and is referred to by name. See MAINTAINING.md, "The build code".
"""

from pathlib import Path

from site_build import gallery
from site_build.config import site_facts, site_url
from site_build.extensions import execution_cache

CONF_DIR = Path(__file__).resolve().parent
ROOT = CONF_DIR.parent

# -- Project ---------------------------------------------------------------------------
project = "PyTorch copy semantics"
author = "The torch-copy-semantics authors"
copyright = f"2026, {author}"
verified = site_facts.verified_with()
execution_key = site_facts.execution_key()
release = str(verified["torch_version"])

# -- Extensions ------------------------------------------------------------------------
extensions = [
    # first: starts the preloaded kernel while the others load
    "site_build.extensions.notebook_prefetch",
    "myst_nb",
    "sphinx_gallery.gen_gallery",
    "sphinx.ext.intersphinx",
    "sphinx_copybutton",
    "sphinx_design",
    "sphinx_codeautolink",
    "site_build.extensions.code_links",
    "site_build.extensions.folded_code",
    "site_build.extensions.myth_verdicts",
    "site_build.extensions.answers",
    "site_build.extensions.gallery_pages",
    "site_build.extensions.break_points",
    "site_build.extensions.figure_alt",
    "site_build.extensions.figure_text",
    "site_build.extensions.execution_cache",
    "site_build.extensions.hermetic",
    "sphinxext.opengraph",
    "notfound.extension",
    "site_build.extensions.publishing",
    "site_build.extensions.semantics_pages",
    "site_build.extensions.release_pages",
    "site_build.extensions.editions",
    "site_build.extensions.translated_links",
    "site_build.extensions.slowest_code",
    # last: indexes the pages the others wrote
    "site_build.extensions.pagefind_search",
]

root_doc = "index"
# -- Editions: English at the root, Simplified Chinese in zh_CN/ (`-D language=zh_CN`) --
language = "en"
locale_dirs = [str(ROOT / "locales")]  # one catalogue per page: `nox -s translations`
gettext_compact = False
gettext_location = False  # catalogues change when messages do, not when lines move
gettext_uuid = False
gettext_last_translator = "The torch-copy-semantics authors"
gettext_language_team = "The torch-copy-semantics authors"
nitpicky = True
exclude_patterns = [
    # Sphinx-Gallery writes a notebook, a script and checksums beside each page;
    # only its .rst pages are sources (a second "index" otherwise collides with MyST-NB).
    "gallery/**.ipynb",
    "gallery/**.py",
    "gallery/**.md5",
    "gallery/**.json",
    "gallery/**.zip",
    "**/.ipynb_checkpoints",
]
templates_path = ["_templates"]
html_static_path = ["_static"]

# -- Intersphinx: inventories kept in the repo (regenerate with `nox -s inventories`) --
INVENTORIES = CONF_DIR / "inventories"  # a relative path would resolve against docs/
intersphinx_mapping = {
    "python": ("https://docs.python.org/3/", (str(INVENTORIES / "python.inv"), None)),
    "numpy": ("https://numpy.org/doc/stable/", (str(INVENTORIES / "numpy.inv"), None)),
    "torch": (
        "https://docs.pytorch.org/docs/stable/",
        (str(INVENTORIES / "torch.inv"), None),
    ),
}
intersphinx_timeout = 5

# -- MyST and MyST-NB --------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist", "attrs_inline", "substitution"]
myst_heading_anchors = 3
SOURCE_URL = site_url.source_url()  # SOURCE_URL when publishing; see MAINTAINING.md
myst_substitutions = {
    "torch_version": release,
    # Linked where the repository is known.
    "source_repository": f"[source repository]({SOURCE_URL})"
    if SOURCE_URL
    else "source repository",
    "page_device": verified["page_device"],
    "verified_devices": verified["devices_in_words"],
}
nb_execution_mode = "cache"
nb_execution_cache_path = str(execution_cache.notebook_cache(ROOT, execution_key))
# A cell that raises is a warning with its traceback, which -W makes fatal: the build
# ends naming the page, the line and the assertion, not in Sphinx's crash report.
nb_execution_raise_on_error = False
nb_execution_show_tb = True
nb_execution_timeout = 180
nb_merge_streams = True

# -- Sphinx-Gallery ----------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],  # resolved against docs/, the source folder
    "gallery_dirs": ["gallery"],
    "filename_pattern": r".*\.py$",  # every script is executed, not only plot_*.py
    "ignore_pattern": r"__init__\.py",
    "within_subsection_order": "site_build.gallery.ReadingOrder",
    "download_all_examples": True,
    "abort_on_example_error": False,
    # A failing example is a warning naming its file and line, which -W makes fatal: a
    # raised error would end the log in Sphinx's crash report ("please open an issue").
    "only_warn_on_example_error": True,
    "remove_config_comments": True,
    "write_computation_times": False,  # its summary page loads DataTables from a CDN
    "reset_modules": ("matplotlib", "site_build.gallery.reset_torch"),
    "reset_modules_order": "before",
    # No page shows its running time: an example reporting one would need more than
    # forever. The build log's summary leaves them out too; the .cost.json records and
    # the benchmark keep them.
    "min_reported_time": float("inf"),
    "show_memory": gallery.PeakMemory(),
    "show_signature": False,
    "first_notebook_cell": None,
    # SVG with its text as text: sharp on HiDPI screens, and translatable.
    "image_scrapers": (gallery.SvgFigures(),),
    "image_srcset": [],
    "matplotlib_animations": False,
    "copyfile_regex": "",
}

# -- Code links, copy button -------------------------------------------------------------
codeautolink_concat_default = True
codeautolink_warn_on_missing_inventory = False
codeautolink_warn_on_failed_resolve = False
copybutton_exclude = ".linenos, .gp, .go"
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True

# -- HTML ----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = project
html_context = {**verified, "default_mode": "auto"}
html_last_updated_fmt = None
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    # Four links and "More": six in a row would wrap the header at 1000 px.
    "header_links_before_dropdown": 4,
    "show_prev_next": True,
    "footer_start": ["copyright", "verified-with"],
    "footer_end": ["sphinx-version", "theme-version"],
    "secondary_sidebar_items": ["page-toc", "sg_download_links", "sg_launcher_links"],
    "navigation_with_keys": False,
    # The search box as an icon (Ctrl+K still opens it): the header stays one row.
    "navbar_persistent": ["search-button"],
    "navbar_end": ["language-switch", "theme-switcher", "navbar-icon-links"],
    # Second-level headings in the page menu too: the matrix's group tables.
    "show_toc_level": 2,
    "icon_links": [{"name": "Source", "url": SOURCE_URL, "icon": "fa-brands fa-github"}]
    if SOURCE_URL
    else [],
}
# The code, its output and the matrix need the width: no left sidebar. A page's
# neighbours are in the header, the breadcrumbs and the previous/next links.
html_sidebars = {"**": []}
html_css_files = ["site.css", "tables.css"]
html_js_files = [("tables.js", {"defer": "defer"})]
html_favicon = "_static/favicon.svg"  # else browsers ask the host for /favicon.ico

# -- Publishing: base URL, page descriptions, sitemap, 404 page --------------------------
html_baseurl = site_url.base_url()  # SITE_URL when publishing; see MAINTAINING.md
ogp_site_url = html_baseurl
ogp_social_cards = {"enable": False}  # no per-page PNG drawn with matplotlib
ogp_description_length = 160
ogp_enable_meta_description = True  # <meta name="description"> from each page's text
notfound_urls_prefix = site_url.path_prefix(html_baseurl)
notfound_context = {
    "title": "Page not found",
    "body": (
        "<h1>Page not found</h1>\n<p>There is no page at this address. Start again "
        f'from the <a href="{notfound_urls_prefix}index.html">home page</a>, or use the '
        "search box above.</p>"
    ),
}
