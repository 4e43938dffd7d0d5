"""`set mpipp context`: whether printing a buffer of an MPI call decodes it."""

import gdb

from .. import views
from ..inferior.commands import Setting


class ContextSetting(Setting):
    """Whether printing a buffer of the current MPI call or of a pending request
also shows its elements decoded through the call's datatype."""

    name = "context"
    kind = gdb.PARAM_BOOLEAN
    default = True
    set_doc = "Set whether mpipp decodes buffers of MPI calls and pending requests when printed."
    show_doc = "Show whether mpipp decodes buffers of MPI calls and pending requests when printed."
    shown = "Decoding buffers of MPI calls in context is %s."

    def get_set_string(self):
        views.context.clear()
        return ""
