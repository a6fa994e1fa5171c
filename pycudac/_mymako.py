"""PyCUDA's pycuda._mymako: Mako, or an ImportError that says how to get
it. Code built on PyCUDA imports its templates through this name
(`import pycuda._mymako as mako; mako.template.Template(...)`)."""
try:
    import mako.template  # noqa: F401
except ImportError as e:
    raise ImportError("this part of pycudac (or of code written for PyCUDA) renders Mako "
                      "templates, and Mako could not be imported: pip install Mako") from e

from mako import *  # noqa: E402,F401,F403
from mako import template  # noqa: E402,F401
