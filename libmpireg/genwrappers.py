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

New kinds of calls (communication, later) add hooks to HOOKS below; a row
stays one line.  Standard library only.
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
    "init": (0, "", "mpireg_mpi_up();", False),
}


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


def gen_create(out, combiner, sections, ind):
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
            else:
                lines.append("        for (size_t mpireg_j = 0; mpireg_j < MPIREG_LEN(%s); mpireg_j++)" % length)
                lines.append("            *mpireg_p++ = %s;" % (conv % ("(%s)[mpireg_j]" % expr)))
        lines.append("    }")
    lines.append("    mpireg_publish(mpireg_r, *(%s), MPI_COMBINER_%s, mpireg_site);" % (out, combiner))
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
    for hook, args in recipe:
        if hook == "create":
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
        post.extend(gen_create(create[0], create[1], sections, "        "))
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
    if serialize:
        out.append("    mpireg_lock();")
    out.append("    mpireg_rc = %s;" % call)
    if post:
        out.append("    if (mpireg_rc == MPI_SUCCESS) {")
        out.extend(post)
        out.append("    }")
    if serialize:
        out.append("    mpireg_unlock();")
    out.append("    mpireg_depth--;")
    out.append("    return mpireg_rc;")
    out.append("}")
    out.append("")
    return out


def generate(spec_path):
    out = [
        "/* Generated by libmpireg/genwrappers.py from %s: do not edit. */" % spec_path,
        '#include "mpireg_internal.h"',
        "",
        "#define MPIREG_EXPORT __attribute__((visibility(\"default\")))",
        "#define MPIREG_LEN(n) ((n) > 0 ? (size_t)(n) : (size_t)0)",
        "",
    ]
    seen = set()
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
            out.extend(gen_function(name, parse_params(params), parse_recipe(recipe), lineno))
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: genwrappers.py wrappers.spec > wrappers.c\n")
        return 2
    try:
        sys.stdout.write(generate(argv[1]))
    except (SpecError, OSError) as e:
        sys.stderr.write("genwrappers: %s: %s\n" % (argv[1], e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
