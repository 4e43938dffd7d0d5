"""How mpipp names and describes communicators and windows, worded from
plain values (standard library only): the gdb side words what it reads
from libmpireg (readers/context.py, readers/objects.py), the job console
the same values from the ranks' context documents, so a communicator
reads the same in both."""

PREDEFINED_COMMS = ("MPI_COMM_WORLD", "MPI_COMM_SELF", "MPI_COMM_NULL")
# How Communicators.about says what made a communicator from its parent.
COMM_ORIGINS = {"MPI_Comm_dup": "dup of %s", "MPI_Comm_dup_with_info": "dup of %s",
                "MPI_Comm_split": "split of %s", "MPI_Comm_split_type": "split of %s",
                "MPI_Comm_create": "subset of %s", "MPI_Comm_create_group": "subset of %s",
                "MPI_Cart_create": "cartesian topology on %s", "MPI_Cart_sub": "slice of %s",
                "MPI_Graph_create": "graph topology on %s",
                "MPI_Dist_graph_create": "graph topology on %s",
                "MPI_Dist_graph_create_adjacent": "graph topology on %s",
                "MPI_Intercomm_create": "intercommunicator from %s",
                "MPI_Intercomm_merge": "merge of %s"}


def predefined_comms(constants):
    """{handle key: name} of the predefined communicators, from {name: value}."""
    return {constants[name]: name for name in PREDEFINED_COMMS if name in constants}


def comm_serial_label(serial):
    """'comm#3': a communicator by its creation serial (0: none recorded)."""
    return "comm#%d" % serial if serial else None


class Communicators:
    """One process's communicators as mpipp names them.  comms: {handle
    key: record}, each record with name, serial, creator, parent (a handle
    key), how_name, how, size, rank, remote_size and predefined;
    predefined: {handle key: name} (predefined_comms); type_shared: the
    value of MPI_COMM_TYPE_SHARED (a split_type's `how`)."""

    def __init__(self, comms, predefined, type_shared=None):
        self.comms, self.predefined, self.type_shared = comms, predefined, type_shared

    def label(self, key):
        """What a user types back for a communicator: 'MPI_COMM_WORLD', the
        name given with MPI_Comm_set_name ('row_comm'), its label 'comm#3'
        (its creation serial), else its handle '0x84000001'."""
        if key in self.predefined:
            return self.predefined[key]
        comm = self.comms.get(key)
        if comm is not None and comm.name:
            return comm.name
        if comm is not None and comm.serial:
            return comm_serial_label(comm.serial)
        return "0x%x" % key

    def by_label(self, text):
        """The handle key of a communicator by its label, or None."""
        for key, name in self.predefined.items():
            if name == text:
                return key
        for key, comm in self.comms.items():
            if text in (comm.name, comm_serial_label(comm.serial)):
                return key
        return None

    def about(self, key):
        """How a communicator was made, the same on every member: 'dup of
        MPI_COMM_WORLD', 'split of comm#2 (color 1)', 'MPI_Cart_create of
        MPI_COMM_WORLD'; None for a predefined or unknown one."""
        comm = self.comms.get(key)
        if comm is None or comm.predefined or not comm.creator:
            return None
        origin = COMM_ORIGINS.get(comm.creator, comm.creator + " of %s")
        text = origin % self.label(comm.parent)
        if comm.how_name == "split_type" and comm.how == self.type_shared:
            text += " (MPI_COMM_TYPE_SHARED)"
        elif comm.how_name:
            text += " (%s %d)" % (comm.how_name, comm.how)
        return text

    def text(self, key, local=True, predefined_alone=False):
        """A communicator with what it is: 'comm#3 [split of MPI_COMM_WORLD
        (color 1), rank 0 of 2]' (local: this process's rank, else the
        size alone, the same text on every member); predefined_alone:
        'MPI_COMM_WORLD' without the brackets."""
        label = self.label(key)
        comm = self.comms.get(key)
        if comm is None or predefined_alone and comm.predefined:
            return label
        parts = [p for p in (self.about(key), comm_size_text(comm, local)) if p]
        return "%s [%s]" % (label, ", ".join(parts))


def comm_size_text(comm, local=True):
    """'rank 1 of 4' (local: this process's rank) or '4 ranks', with an
    intercommunicator's remote group."""
    if local:
        text = "rank %s of %d" % (comm.rank if comm.rank >= 0 else "none", comm.size)
        return text + (", remote group %d" % comm.remote_size if comm.remote_size else "")
    if comm.remote_size:
        return "%d + %d ranks" % (comm.size, comm.remote_size)
    return "%d rank%s" % (comm.size, "" if comm.size == 1 else "s")


def win_label(name, serial):
    """A window as a user types it back: the name given with
    MPI_Win_set_name, else 'win#1' (its creation serial)."""
    return name or "win#%d" % serial
