"""The registry's records as model Datatypes (gdb-free).

readers/registry.py reads libmpireg's registry -- records, tables, names,
the predefined table -- and knows nothing of the model; TypeRegistry adds
what turns a record and its arguments into a Datatype, children first, and
checks the extents the record carries against the tree.  Built once per
stop by the gdb layer (views.registry), on any memory object.
"""

from ..readers.errors import MpippError
from ..readers.registry import Registry, RegistryError
from . import typemap
from .datatype import Constants, Datatype

# Model constant fields and the registry constants that give their values.
MPI_CONSTANTS = (("order_c", "MPI_ORDER_C"), ("order_fortran", "MPI_ORDER_FORTRAN"),
                 ("distribute_block", "MPI_DISTRIBUTE_BLOCK"),
                 ("distribute_cyclic", "MPI_DISTRIBUTE_CYCLIC"),
                 ("distribute_none", "MPI_DISTRIBUTE_NONE"),
                 ("distribute_dflt_darg", "MPI_DISTRIBUTE_DFLT_DARG"))


class TypeRegistry(Registry):
    """A Registry whose records are also model Datatypes (datatype_at, lookup)."""

    def __init__(self, memory, root_address):
        super().__init__(memory, root_address)
        self._datatypes = {}
        self.constants = self.derived("model constants", self._model_constants)
        self._predefined_datatypes = self._kept_predefined()

    def _model_constants(self):
        const = self.const
        return Constants(**{field: const[name] for field, name in MPI_CONSTANTS
                            if name in const})

    def _kept_predefined(self):
        """The Datatypes of predefined types without arguments, kept with the
        constants table while the predefined table's bytes stay the same
        (as the reader keeps their records)."""
        kept = self.derived("predefined datatypes", dict)
        if self.predefined_key not in kept:
            kept.clear()
            kept[self.predefined_key] = {}
        return kept[self.predefined_key]

    def freed_in_use(self):
        """Addresses of the records of types the program freed that types
        in the table still use (not in the table themselves): found by
        building the table's types (one that cannot be built is passed
        over: its arguments are not to be trusted)."""
        live = set(self.live_records())
        for address in live:
            try:
                self.datatype_at(address)
            except MpippError:
                continue
        predefined = set(self._predefined_by_handle.values())
        return [a for a in self._datatypes if a not in live and a not in predefined]

    def datatype_at(self, address):
        """The model Datatype of the record at address, children included:
        read children first, without recursion and without a depth limit
        (how deep a type may be shown is the model's rule, validate(), so
        it never depends on which types were read before); a cycle of
        record pointers is corruption."""
        if address in self._datatypes:
            return self._datatypes[address]
        if address in self._predefined_datatypes:
            self._datatypes[address] = self._predefined_datatypes[address]
            return self._datatypes[address]
        stack, on_path = [(address, None)], set()
        while stack:
            at, read = stack.pop()
            if at in self._datatypes:
                continue
            if read is None:
                if at in on_path:
                    raise RegistryError("datatype tree at 0x%x is corrupted (a cycle)" % at)
                on_path.add(at)
                record = self.record_at(at)
                read = record, self.read_args(record)
                stack.append((at, read))
                stack.extend((child, None) for child in reversed(read[1][3])
                             if child not in self._datatypes)
                continue
            on_path.discard(at)
            self._datatypes[at] = self._build(at, *read)
            if at in self._predefined_records and not any(read[1]):
                self._predefined_datatypes[at] = self._datatypes[at]
        return self._datatypes[address]

    def _build(self, address, r, args):
        """The Datatype of record r whose children are read already."""
        integers, addresses, large, child_addresses = args
        combiner = self.combiner_names.get(r.combiner)
        if combiner is None:
            raise RegistryError("record at 0x%x has an unknown combiner %d" % (address, r.combiner))
        predefined = self.is_predefined(r)
        committed, freed = self.state(r)
        children = [self._datatypes[a] for a in child_addresses]
        dt = Datatype(
            combiner=combiner,
            integers=integers if not predefined else [],
            addresses=addresses if not predefined else [],
            large_counts=large,
            children=children if not predefined else [],
            size=r.size, lb=r.lb, extent=r.extent, true_lb=r.true_lb, true_extent=r.true_extent,
            name=r.name,
            kind=self.kind_names.get(r.kind) if predefined else None,
            members=list(zip(addresses, children)) if predefined else [],
            handle=r.handle,
            committed=committed or predefined,
            freed=freed,
            serial=r.serial,
            created_at=r.created_at or None,
            constants=self.constants,
        )
        if not predefined:
            mismatch, dt.bounds_note = typemap.extents_check(dt)
            if mismatch:
                raise RegistryError("datatype record at 0x%x (serial %d) is corrupted: %s"
                                    % (address, r.serial, mismatch))
        return dt

    def lookup(self, handle):
        """The Datatype for a handle, or None when the handle is not registered."""
        address = self.find_record(handle)
        return None if address is None else self.datatype_at(address)
