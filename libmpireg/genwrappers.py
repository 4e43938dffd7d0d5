#!/usr/bin/env python3
"""Generate libmpireg's PMPI wrappers (build/wrappers.c) from wrappers.spec.

Usage: genwrappers.py wrappers.spec > wrappers.c

A spec row is one MPI function:

    NAME | PARAMETERS | RECIPE

PARAMETERS is the C parameter list exactly as in the MPI library's header (the
compiler checks it against mpi.h's prototype).  The wrapper calls PMPI_NAME
with the same arguments and returns its code unchanged; the recipe runs only
when that code is MPI_SUCCESS (except `before` parts, see HOOKS).

RECIPE is a sequence of hooks `hook(arg, ...)`.  Arguments are C expressions
over the parameters.  Hooks:

    create(OUT, COMBINER)  *OUT is a new datatype built with MPI_COMBINER_<COMBINER>;
                           its record's argument arrays are given by:
    I(items) A(items) L(items) D(items)
                           integers / addresses / large counts / datatypes, in
                           the order MPI_Type_get_contents_c returns them.  An
                           item is EXPR (one value) or EXPR[LEN] (LEN values
                           EXPR[0..LEN-1]).
    commit(PTR)            *PTR was committed
    free(PTR)              *PTR (read before the call) was freed
    set_name(H, NAME)      H was named NAME
    contents(H, OUT, MAX)  get_contents of H handed out the datatypes in OUT
    init()                 MPI is up

New kinds of calls add hooks to HOOKS below; a row stays one line.

Communication context hooks (rows of comm.spec; see calls.h).  A row that
uses any of them records the call in the calling thread's slot before the
PMPI call (no lock held across it) and clears it afterwards:

    comm(C)                       the communicator
    peer(NAME, EXPR)              source/dest/root/target_rank, named NAME
    peer2(NAME, EXPR, TAG)        Sendrecv's second peer and its tag
    tag(EXPR)                     the tag
    extra(NAME, HANDLE)           op / win handle shown as NAME
    buf(ROLE, ADDR, COUNT, TYPE)  a buffer of COUNT elements of TYPE
    vbuf(ROLE, ADDR, COUNTS, DISPLS, TYPE, NPEERS)
                                  per-peer counts (and displacements in
                                  extents) of one TYPE
    cbuf(ROLE, ADDR, COUNTS, TYPE, NPEERS)
                                  per-peer counts, consecutive (Reduce_scatter)
    wbuf(ROLE, ADDR, COUNTS, DISPLS, TYPES, NPEERS)
                                  per-peer counts, byte displacements, types
    reqs(PTR, N)                  the requests a Wait/Test/Start call names
    post(REQPTR)                  nonblocking: *REQPTR becomes pending
    persist(REQPTR)               persistent *_init: *REQPTR, inactive
    ppersist(REQPTR)              partitioned *_init
    complete(N, REQS, ALL, NDONE, DONE)
                                  Wait*/Test*: REQS[0..N-1] read before the
                                  call; afterwards the ones now
                                  MPI_REQUEST_NULL are gone, and completed
                                  persistent ones (ALL, or the NDONE indices
                                  in DONE) become inactive
    forget(REQPTR)                Request_free
    start(N, REQS)                Start/Startall
    cancel(REQPTR)                Cancel
    comm_new(OUTPTR, PARENT)      a new communicator *OUTPTR
    comm_free(PTR)                *PTR freed
    comm_name(C, NAME)            C named NAME
    op_new(FN, COMMUTE, OUTPTR)   a user-defined op
    op_free(PTR)                  *PTR freed

Several spec files may be given; they are concatenated (a function may be
listed only once overall).  Standard library only.
"""
import re
import sys

ARRAYS = {  # section -> (C element type, writer accessor, count index)
    "I": ("int", "mpireg_w_integers", 0),
    "A": ("MPI_Aint", "mpireg_w_addresses", 1),
    "L": ("MPI_Count", "mpireg_w_large_counts", 2),
    "D": ("uint64_t", "mpireg_w_datatype_keys", 3),
}

# hook -> (number of arguments, code before the PMPI call, code after success,
#          serialize).  A serialized call runs the PMPI call and the registry
# update under the registry lock as one step: MPI may destroy a handle in one
# thread and give it to a new type in another, and the registry must see the
# two events in MPI's order.
HOOKS = {
    "commit": (1, "", "mpireg_on_commit(*({0}));", False),
    "free": (1, "MPI_Datatype mpireg_freed = ({0}) ? *({0}) : MPI_DATATYPE_NULL;",
             "mpireg_on_free(mpireg_freed);", True),
    "set_name": (2, "", "mpireg_on_set_name({0}, {1});", False),
    "contents": (3, "", "mpireg_on_contents({0}, {1}, (MPI_Count)({2}));", True),
    "init": (0, "", "mpireg_mpi_up(); mpireg_req_probe(); mpireg_ctx_up();", False),
}

# Communication context hooks -> (number of arguments, code filling the call
# record `mpireg_c` before the PMPI call, code after the call whatever its
# result, code after success).  {rc} is the PMPI return code.
CTX_HOOKS = {
    "comm": (1, "mpireg_c->comm = MPIREG_HKEY({0}); mpireg_c->flags |= MPIREG_CALL_HAS_COMM;",
             "", ""),
    "peer": (2, 'mpireg_c->peer_name = "{0}"; mpireg_c->peer = ({1}); '
                "mpireg_c->flags |= MPIREG_CALL_HAS_PEER;", "", ""),
    "peer2": (3, 'mpireg_c->peer2_name = "{0}"; mpireg_c->peer2 = ({1}); mpireg_c->tag2 = ({2}); '
                 "mpireg_c->flags |= MPIREG_CALL_HAS_PEER2;", "", ""),
    "tag": (1, "mpireg_c->tag = ({0}); mpireg_c->flags |= MPIREG_CALL_HAS_TAG;", "", ""),
    "extra": (2, 'mpireg_c->extra_name = "{0}"; mpireg_c->extra = MPIREG_HKEY({1}); '
                 "mpireg_c->flags |= MPIREG_CALL_HAS_EXTRA;", "", ""),
    "buf": (4, '{{ struct mpireg_cbuf *mpireg_b = mpireg_cbuf_add(mpireg_c, "{0}", {1}); '
               "mpireg_b->count = (int64_t)({2}); mpireg_b->datatype = MPIREG_HKEY({3}); }}",
            "", ""),
    "vbuf": (6, '{{ struct mpireg_cbuf *mpireg_b = mpireg_cbuf_add(mpireg_c, "{0}", {1}); '
                "mpireg_b->count = -1; mpireg_b->datatype = MPIREG_HKEY({4}); "
                "mpireg_b->counts = (uint64_t)(uintptr_t)({2}); mpireg_b->count_size = sizeof *({2}); "
                "mpireg_b->displs = (uint64_t)(uintptr_t)({3}); mpireg_b->displ_size = sizeof *({3}); "
                "mpireg_b->npeers = ({5}); }}", "", ""),
    "cbuf": (5, '{{ struct mpireg_cbuf *mpireg_b = mpireg_cbuf_add(mpireg_c, "{0}", {1}); '
                "mpireg_b->count = -1; mpireg_b->datatype = MPIREG_HKEY({3}); "
                "mpireg_b->counts = (uint64_t)(uintptr_t)({2}); mpireg_b->count_size = sizeof *({2}); "
                "mpireg_b->npeers = ({4}); }}", "", ""),
    "wbuf": (6, '{{ struct mpireg_cbuf *mpireg_b = mpireg_cbuf_add(mpireg_c, "{0}", {1}); '
                "mpireg_b->count = -1; mpireg_b->datatype = 0; "
                "mpireg_b->counts = (uint64_t)(uintptr_t)({2}); mpireg_b->count_size = sizeof *({2}); "
                "mpireg_b->displs = (uint64_t)(uintptr_t)({3}); mpireg_b->displ_size = sizeof *({3}); "
                "mpireg_b->displ_in_bytes = 1; mpireg_b->types = (uint64_t)(uintptr_t)({4}); "
                "mpireg_b->npeers = ({5}); }}", "", ""),
    "reqs": (2, "mpireg_c->reqs = (uint64_t)(uintptr_t)({0}); mpireg_c->nreqs = ({1}); "
                "mpireg_c->flags |= MPIREG_CALL_HAS_REQS;", "", ""),
    "post": (1, "", "", "mpireg_req_post(*({0}), mpireg_c, MPIREG_REQ_ACTIVE);"),
    "persist": (1, "", "", "mpireg_req_post(*({0}), mpireg_c, MPIREG_REQ_PERSISTENT);"),
    "ppersist": (1, "", "",
                 "mpireg_req_post(*({0}), mpireg_c, MPIREG_REQ_PERSISTENT | MPIREG_REQ_PARTITIONED);"),
    "complete": (5, "struct mpireg_reqsave mpireg_s; mpireg_req_save(&mpireg_s, ({0}), ({1}));",
                 "mpireg_req_after(&mpireg_s, ({1}), {rc} == MPI_SUCCESS && ({2}), "
                 "{rc} == MPI_SUCCESS ? ({3}) : 0, ({4})); mpireg_req_release(&mpireg_s);", ""),
    "forget": (1, "struct mpireg_reqsave mpireg_s; mpireg_req_save(&mpireg_s, 1, ({0}));",
               "if ({rc} == MPI_SUCCESS) {{ mpireg_req_forget(&mpireg_s); }} mpireg_req_release(&mpireg_s);",
               ""),
    "start": (2, "", "", "mpireg_req_start(({0}), ({1}));"),
    "cancel": (1, "", "", "mpireg_req_cancel(*({0}));"),
    "comm_new": (2, "", "", "mpireg_comm_new(*({0}), ({1}), mpireg_c->func, mpireg_site);"),
    "comm_free": (1, "MPI_Comm mpireg_cf = ({0}) ? *({0}) : MPI_COMM_NULL;", "",
                  "mpireg_comm_gone(mpireg_cf);"),
    "comm_name": (2, "", "", "mpireg_comm_named(({0}), ({1}));"),
    "op_new": (3, "", "", "mpireg_op_new(*({2}), (void (*)(void))({0}), ({1}), mpireg_site);"),
    "op_free": (1, "MPI_Op mpireg_of = ({0}) ? *({0}) : MPI_OP_NULL;", "", "mpireg_op_gone(mpireg_of);"),
}
# Pre-call code of these hooks declares variables, so it goes before the call
# record is filled (hooks above are otherwise emitted in row order).
CTX_DECLARES = ("complete", "forget", "comm_free", "op_free")


class SpecError(Exception):
    pass


def split_top(text, sep=","):
    """Split on sep outside parentheses and brackets."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    last = "".join(cur).strip()
    if last:
        parts.append(last)
    return parts


def parse_params(text):
    """[(declaration, name)] from a C parameter list."""
    text = " ".join(text.split())
    if text in ("", "void"):
        return []
    out = []
    for p in split_top(text):
        m = re.match(r"^(.*?)\b([A-Za-z_]\w*)\s*((?:\[\s*\])*)$", p)
        if not m or not m.group(1).strip():
            raise SpecError("cannot parse parameter %r" % p)
        out.append((p, m.group(2)))
    return out


def parse_recipe(text):
    """[(hook, [args])] from `hook(a, b) other(c)`."""
    hooks, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = re.compile(r"\s*([A-Za-z_]\w*)\s*\(").match(text, pos)
        if not m:
            raise SpecError("bad recipe near %r" % text[pos:])
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        if depth:
            raise SpecError("unbalanced parentheses in %r" % text)
        hooks.append((m.group(1), split_top(text[m.end():i - 1])))
        pos = i
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return hooks


def parse_item(item):
    m = re.match(r"^(.*)\[(.+)\]$", item)
    if m:
        return m.group(1).strip(), m.group(2).strip()
    return item, None


# Rows whose stored combiner is asked from MPI (PMPI_Type_get_envelope_c)
# instead of taken from the recipe: the MPI-1 constructors, for which an MPI
# may report the *_INTEGER combiners (MPICH 4.0.2 does not: tests/c/oracle.c),
# and the f90 types (cached by MPICH).  Every other row's combiner is the
# recipe's, which tests/c/oracle.c checks against MPI; asking costs a PMPI
# call per new type.
CHECK_COMBINER_ROWS = ("MPI_Type_hvector", "MPI_Type_hindexed", "MPI_Type_struct")


def check_combiner(name, combiner):
    return name in CHECK_COMBINER_ROWS or combiner.startswith("F90_")


def element_types(params):
    """{parameter name: element type} of the array parameters
    ('const int array_of_blocklengths[]' -> 'int')."""
    out = {}
    for decl, name in params:
        m = re.match(r"^(?:const\s+)?(\w+)\s*\*?\s*" + name + r"\s*(\[\s*\])?$", decl)
        if m and (m.group(2) or "*" in decl):
            out[name] = m.group(1)
    return out


def gen_create(out, combiner, sections, ind, check=True, elem_types=None):
    lines = ["size_t mpireg_n[4] = {0, 0, 0, 0};"]
    for sec, items in sections:
        idx = ARRAYS[sec][2]
        for expr, length in items:
            lines.append("mpireg_n[%d] += %s;" % (idx, "1" if length is None else "MPIREG_LEN(%s)" % length))
    lines.append("struct mpireg_record *mpireg_r = mpireg_record_alloc(mpireg_n[0], mpireg_n[1], mpireg_n[2], mpireg_n[3]);")
    lines.append("if (mpireg_r) {")
    for sec, items in sections:
        ctype, acc, _ = ARRAYS[sec]
        conv = "mpireg_key(%s)" if sec == "D" else "(" + ctype + ")(%s)"
        lines.append("    {")
        lines.append("        %s *mpireg_p = %s(mpireg_r);" % (ctype, acc))
        for expr, length in items:
            if length is None:
                lines.append("        *mpireg_p++ = %s;" % (conv % expr))
            elif sec != "D" and (elem_types or {}).get(expr) == ctype:
                # the same element type: one copy (the hot path of big structs;
                # an empty array may be NULL)
                lines.append("        if (MPIREG_LEN(%s)) {" % length)
                lines.append("            memcpy(mpireg_p, %s, MPIREG_LEN(%s) * sizeof *mpireg_p);"
                             % (expr, length))
                lines.append("            mpireg_p += MPIREG_LEN(%s);" % length)
                lines.append("        }")
            else:
                lines.append("        for (size_t mpireg_j = 0; mpireg_j < MPIREG_LEN(%s); mpireg_j++)" % length)
                lines.append("            *mpireg_p++ = %s;" % (conv % ("(%s)[mpireg_j]" % expr)))
        lines.append("    }")
    lines.append("    mpireg_publish(mpireg_r, *(%s), MPI_COMBINER_%s, %d, mpireg_site);"
                 % (out, combiner, 1 if check else 0))
    lines.append("}")
    return [ind + l for l in lines]


def gen_function(name, params, recipe, lineno):
    names = [n for _, n in params]
    call = "P%s(%s)" % (name, ", ".join(names))
    pre, post = [], []
    create = None
    sections = []
    uses_site = False
    serialize = False
    ctx_decl, ctx_fill, ctx_always, ctx_post = [], [], [], []
    for hook, args in recipe:
        if hook in CTX_HOOKS:
            nargs, fill, always, after = CTX_HOOKS[hook]
            if len(args) != nargs:
                raise SpecError("line %d: %s takes %d arguments" % (lineno, hook, nargs))
            uses_site = True
            if fill:
                (ctx_decl if hook in CTX_DECLARES else ctx_fill).append(
                    "    " + fill.format(*args, rc="mpireg_rc"))
            if always:
                ctx_always.append("    " + always.format(*args, rc="mpireg_rc"))
            if after:
                ctx_post.append("        " + after.format(*args, rc="mpireg_rc"))
        elif hook == "create":
            if len(args) != 2:
                raise SpecError("line %d: create(OUT, COMBINER)" % lineno)
            create = args
            uses_site = True
            serialize = True
        elif hook in ARRAYS:
            sections.append((hook, [parse_item(a) for a in args]))
        elif hook in HOOKS:
            nargs, before, after, ser = HOOKS[hook]
            serialize = serialize or ser
            if len(args) != nargs:
                raise SpecError("line %d: %s takes %d arguments" % (lineno, hook, nargs))
            if before:
                pre.append("    " + before.format(*args))
            if after:
                post.append("        " + after.format(*args))
        else:
            raise SpecError("line %d: unknown hook %r" % (lineno, hook))
    if sections and not create:
        raise SpecError("line %d: I/A/L/D without create()" % lineno)
    if create:
        post.extend(gen_create(create[0], create[1], sections, "        ",
                               check_combiner(name, create[1]), element_types(params)))
    out = []
    out.append("/* %s: wrappers.spec line %d */" % (name, lineno))
    out.append("MPIREG_EXPORT int %s(%s)" % (name, ", ".join(d for d, _ in params)))
    out.append("{")
    if uses_site:
        out.append("    void *mpireg_site = __builtin_return_address(0);")
    out.append("    int mpireg_rc;")
    out.append("    if (mpireg_depth++ > 0) { /* called by MPI inside a wrapped call */")
    out.append("        mpireg_rc = %s;" % call)
    out.append("        mpireg_depth--;")
    out.append("        return mpireg_rc;")
    out.append("    }")
    out.append("    mpireg_prologue();")
    out.extend(pre)
    context = bool(ctx_decl or ctx_fill or ctx_always or ctx_post)
    if context:
        out.extend(ctx_decl)
        out.append("    struct mpireg_thread_slot *mpireg_slot;")
        out.append("    struct mpireg_call mpireg_cl;")
        out.append('    struct mpireg_call *mpireg_c = mpireg_call_begin(&mpireg_slot, &mpireg_cl, "%s", '
                   "mpireg_site);" % name)
        out.extend(ctx_fill)
        out.append("    (void)mpireg_c;")
        out.append("    mpireg_call_ready(mpireg_slot);")
        post = ctx_post + post
    if serialize:
        out.append("    mpireg_lock();")
    out.append("    mpireg_rc = %s;" % call)
    if post:
        out.append("    if (mpireg_rc == MPI_SUCCESS) {")
        out.extend(post)
        out.append("    }")
    if serialize:
        out.append("    mpireg_unlock();")
    if context:
        out.extend(ctx_always)
        out.append("    mpireg_call_end(mpireg_slot);")
    out.append("    mpireg_depth--;")
    out.append("    return mpireg_rc;")
    out.append("}")
    out.append("")
    return out


def generate(spec_path, *more_specs):
    spec_paths = (spec_path,) + more_specs
    out = [
        "/* Generated by libmpireg/genwrappers.py from %s: do not edit. */" % " ".join(spec_paths),
        '#include "mpireg_internal.h"',
        "",
        "#define MPIREG_EXPORT __attribute__((visibility(\"default\")))",
        "#define MPIREG_LEN(n) ((n) > 0 ? (size_t)(n) : (size_t)0)",
        "",
    ]
    seen = set()
    body = []
    for path in spec_paths:
        body.extend(_generate_rows(path, seen))
    if any(name in CTX_HOOKS for name in _hooks_used):
        out[2:2] = ['#include "calls.h"']
    out.extend(body)
    return "\n".join(out) + "\n"


_hooks_used = set()


def _generate_rows(spec_path, seen):
    out = []
    with open(spec_path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            cols = [c.strip() for c in line.split("|")]
            if len(cols) != 3:
                raise SpecError("line %d: expected NAME | PARAMETERS | RECIPE" % lineno)
            name, params, recipe = cols
            if not re.match(r"^MPI_\w+$", name):
                raise SpecError("line %d: bad function name %r" % (lineno, name))
            if name in seen:
                raise SpecError("line %d: %s listed twice" % (lineno, name))
            seen.add(name)
            hooks = parse_recipe(recipe)
            _hooks_used.update(h for h, _ in hooks)
            try:
                out.extend(gen_function(name, parse_params(params), hooks, lineno))
            except SpecError as e:
                raise SpecError("%s: %s" % (spec_path, e)) from None
    return out


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: genwrappers.py wrappers.spec [more.spec ...] > wrappers.c\n")
        return 2
    try:
        sys.stdout.write(generate(*argv[1:]))
    except (SpecError, OSError) as e:
        sys.stderr.write("genwrappers: %s: %s\n" % (" ".join(argv[1:]), e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
