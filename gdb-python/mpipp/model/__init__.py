"""mpipp.model -- the gdb-free MPI datatype model (imports nothing from gdb).

Input
-----
datatype.Datatype     one registry record (combiner, integers, addresses,
                      large_counts, children, recorded size/lb/extent/true_lb/
                      true_extent, name, kind, members, handle, ...).
datatype.Constants    order_c, order_fortran, distribute_* (MPICH defaults).
datatype.validate(dt) check a tree once (depth <= 64, cycles, array lengths);
                      every entry point below calls it.  TypeTreeError.

combiners (ONE table, ``COMBINERS[name]``, one row per combiner)
---------
params(dt) -> [(name, value)]        n_stages(dt) -> int
stage_sizes(dt, prefix) -> int       child_at(dt, indices) -> (child, disp)
blocks(dt) -> iter (indices, child, disp)      layout(dt, fixed=None)
buffer_type(dt, count) -> contiguous(count, dt) as a Datatype
Both argument layouts are parsed: classic and large-count (_c: every MPI_Count
and, in _c constructors, displacement/stride argument in large_counts).

typemap
-------
typemap_runs(dt, count=1) -> [Leaf(offset, basic) | Rep(offset, count, stride, body)]
format_typemap(runs, expand_limit=16, max_parts=10000) -> str   (None: unbounded)
    '{(MPI_INT,0), (MPI_DOUBLE,8)}'; a long repetition is '{ENTRIES}×N stride S'
expand_typemap(dt, count=1) -> iter (basic, offset)   (no LB/UB; pair = 1 entry)
signature(dt, count=1) -> [(name | nested signature, n)]
format_signature(sig) -> 'MPI_DOUBLE×12, MPI_INT×1' / '(MPI_INT×1, MPI_DOUBLE×1)×1000'
compute_extents(dt, align=None) -> Extents(size, lb, ub, extent, true_lb, true_ub, true_extent)
n_elements(dt, count=1) -> int

paths
-----
parse_path(text) -> ParsedPath(label, indices, kinds, text)       PathError
format_path(indices) -> '[0][2][5]'
format_long_path(root, indices, count=None, root_label=None)
    buffer: 'buf(CONTIGUOUS)[0](STRUCT)[2][5](CHAR)'; type: 's_type(STRUCT)[2][5](CHAR)'
resolve_path(dt, count, path_or_parsed, kinds=None)
    -> Resolved(indices, node, partial, offset, is_leaf); count None = type-relative
    errors: 'index 7 out of range at stage 2 of [0][1]: valid 0..3'

elements
--------
leaf_runs(dt, count=1, prefix=()) -> iter LeafRun (prefix, offset, basic, n, stride)
    + .start, .vpos, .path(k) (see elements module doc)
iter_elements(dt, count=1, prefix=()) -> iter (path, offset, basic)
count_elements(dt, count=1, prefix=()) -> int

where
-----
locate(dt, count, offset, limit=10) -> Location(where in inside/gap/before/
    after/empty, path, offset_in_element, basic, element_offset, prev_path,
    next_path, prev_end, next_start, holders, holders_total): by arithmetic
    at each stage (O(depth)); every element holding the byte is counted, the
    first `limit` listed;  describe_location(loc) -> str

decode
------
format_one(basic, raw, fmt=None) -> str   (gdb 13 style; fmt in 'xduotczaf')
formatter(basic, fmt=None) -> f(buf, off, n, stride) -> [str]   (bulk, fast)
json_value(basic, raw) -> JSON value;  hex_bytes(raw) -> 'deadbeef'
json_values(basic, buf, off, n, stride) -> [JSON value];  hex_run(...same...)
    -> ['deadbeef', ...]   (bulk: a column at a time)

render
------
render_elements(dt, count, read, *, prefix=(), fmt=None, long_paths=False,
    with_offsets=False, base_address=0, limit=None, repeats=10,
    root_label=None) -> iter of lines
render_text(...same...) -> iter of text blocks ('line\\n' * n), for writers
iter_json_elements(dt, count, read, *, prefix=(), fmt=None, long_paths=False,
    base_address=0, limit=None, root_label=None) -> iter dict, then TRUNCATED
read_pieces(dt, count, read, ...) -> iter Piece (elements of one basic type
    and their bytes), for packers and writers
read(offset, length) -> bytes, relative to the buffer start; raises
errors.ReadError when unreadable.

jsonout
-------
decode_document(dt, count, read, ...) -> iter of text: the `mpipp -json`
    document, streamed in bounded pieces
typemap_document(head, typemap_runs) -> iter of text: `mpipp typemap -json`

errors
------
MpippError > PathError, TypeTreeError, ReadError, UnreadableElement(path, offset, address)
"""
