"""Sphinx configuration of the PyTorch copy-semantics site.

Declarative on purpose: logic lives in the helper modules of ``_ext/`` and is referred
to by name. Build with ``nox -s docs`` (see README).
"""

import sys
from pathlib import Path

CONF_DIR = Path(__file__).resolve().parent
ROOT = CONF_DIR.parent
sys.path.insert(0, str(CONF_DIR / "_ext"))
sys.path.insert(0, str(ROOT))  # the semantics package: catalogue and probe

import execution_cache  # noqa: E402
import gallery_hooks  # noqa: E402
import publishing  # noqa: E402
import site_facts  # noqa: E402

# -- Project ---------------------------------------------------------------------------
project = "PyTorch copy semantics"
author = "The torch-copy-semantics authors"
copyright = f"2026, {author}"
verified = site_facts.verified_with()
execution_key = site_facts.execution_key()
release = str(verified["torch_version"])

# -- Extensions ------------------------------------------------------------------------
extensions = [
    "notebook_prefetch",  # first: starts the preloaded kernel while the others load
    "myst_nb",
    "sphinx_gallery.gen_gallery",
    "sphinx.ext.intersphinx",
    "sphinx_copybutton",
    "sphinx_design",
    "sphinx_codeautolink",
    "code_links",
    "execution_cache",
    "hermetic",
    "sphinxext.opengraph",
    "notfound.extension",
    "publishing",
    "semantics_site",
]

root_doc = "index"
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
myst_substitutions = {
    "torch_version": release,
    "page_device": verified["page_device"],
    "verified_devices": verified["devices_in_words"],
}
nb_execution_mode = "cache"
nb_execution_cache_path = str(execution_cache.notebook_cache(ROOT, execution_key))
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_execution_timeout = 180
nb_merge_streams = True

# -- Sphinx-Gallery ----------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],  # resolved against docs/, the source folder
    "gallery_dirs": ["gallery"],
    "filename_pattern": r".*\.py$",  # every script is executed, not only plot_*.py
    "ignore_pattern": r"__init__\.py",
    "within_subsection_order": "gallery_hooks.ReadingOrder",
    "download_all_examples": True,
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
    "remove_config_comments": True,
    "write_computation_times": False,  # its summary page loads DataTables from a CDN
    "reset_modules": ("matplotlib", "gallery_hooks.reset_torch"),
    "reset_modules_order": "before",
    "min_reported_time": 0,
    "show_memory": gallery_hooks.PeakMemory(),
    "show_signature": False,
    "first_notebook_cell": None,
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
    "show_prev_next": True,
    "footer_start": ["copyright", "verified-with"],
    "footer_end": ["sphinx-version", "theme-version"],
    "secondary_sidebar_items": ["page-toc", "sg_download_links", "sg_launcher_links"],
    "navigation_with_keys": False,
}
html_sidebars = {"index": [], "reference": []}  # the matrix needs the width
html_favicon = "_static/favicon.svg"  # else browsers ask the host for /favicon.ico

# -- Publishing: base URL, page descriptions, sitemap, 404 page --------------------------
html_baseurl = publishing.base_url()  # SITE_URL when publishing; see README
ogp_site_url = html_baseurl
ogp_social_cards = {"enable": False}  # no per-page PNG drawn with matplotlib
ogp_description_length = 160
ogp_enable_meta_description = True  # <meta name="description"> from each page's text
notfound_urls_prefix = publishing.path_prefix(html_baseurl)
notfound_context = {
    "title": "Page not found",
    "body": (
        "<h1>Page not found</h1>\n<p>There is no page at this address. Start again "
        f'from the <a href="{notfound_urls_prefix}index.html">home page</a>, or use the '
        "search box above.</p>"
    ),
}
