"""`mpipp comms`: the communicators of this process, a line each; and what
`mpipp info comm#3` says of one."""

import gdb

from ... import views
from ...inferior import symbols
from ...inferior.commands import Answer, Command
from ...text.ranks import format_ranks
from ...text.tables import format_table
from ..document import comm_json


class CommsCommand(Command):
    """List the communicators of this process: mpipp comms [-json [FILE]]

One line per communicator: handle, name (the one given with
MPI_Comm_set_name, else its label comm#N, which commands take back), size,
this process's rank in it, the MPI_COMM_WORLD ranks of its members (of the
local and remote groups for an intercommunicator), and what it was made of.

Example:
  (gdb) mpipp comms
  handle      name            size  rank  world ranks  what
  0x44000000  MPI_COMM_WORLD  4     2     0-3          -
  0x84000002  rows            2     0     2,3          split of MPI_COMM_WORLD (color 1)"""

    name = "mpipp comms"
    takes_json = True
    json_file = True
    completer = gdb.COMPLETE_NONE

    def answer(self, args):
        view = views.context.require()
        comms = list(reversed(list(view.comms().values())))
        return Answer(lambda: {"comms": [comm_json(view, m) for m in comms]},
                      lambda: format_table(comms_table(view, comms)))


def comms_table(view, comms):
    table = [("handle", "name", "size", "rank", "world ranks", "what")]
    for m in comms:
        members = _members_text(m.members)
        if m.remote_size:
            members += " | remote " + _members_text(m.remote_members)
        table.append(("0x%x" % m.handle, view.comm_label(m.handle), str(m.size),
                      str(m.rank) if m.rank >= 0 else "-", members,
                      "-" if m.predefined else view.comm_about(m.handle) or "?"))
    return table


def _members_text(members):
    return format_ranks(members) if members else "?"


def comm_info_lines(key):
    """What 'mpipp info comm#3' shows."""
    view = views.context.require()
    m = view.comms()[key]
    site = symbols.site_text(m.created_at)
    out = [view.comm_text(key),
           "  handle 0x%x%s" % (m.handle, ", created by %s%s" % (m.creator, " at " + site if site
                                                                 else "")
                                if not m.predefined else ", predefined")]
    out.append("  world ranks of its ranks 0..%d: %s" % (m.size - 1, _members_text(m.members)))
    if m.remote_size:
        out.append("  world ranks of the remote group: %s" % _members_text(m.remote_members))
    return out
