"""Function names as a person reads them: C++ signatures shortened past a
width, the same way in gdb (`mpipp list`'s "created at", `mpipp calls`)
and in the job console (`stacks`, a rank's stop).  The full text stays in
every -json form.

A name longer than WIDTH loses, in this order and only while it is still
too long: the template arguments (`ArrayRef<…>`), then the text of its
parameter lists (`exchange(…)`; an empty list stays `()`), then its
leading characters (`…Comm::exchange(…)`).  The qualified name of the
function (`LAMMPS_NS::CommBrick::exchange()`) is kept whenever it fits."""

import re

WIDTH = 80
ELIDED = "…"
# C++ operators whose names hold brackets: copied as they are.
_OPERATOR = re.compile(r"operator\s*(<=>|<<=|>>=|<<|>>|<=|>=|->\*|->|<|>|\(\)|\[\])")
_OPENERS = {"<": ">", "(": ")", "[": "]", "{": "}"}
_ANONYMOUS = "(anonymous namespace)"


def short_function(name, width=WIDTH):
    """name, shortened as the module says when longer than width."""
    if not name or len(name) <= width:
        return name
    for collapse in (_templates, _parameters):
        name = collapse(name)
        if len(name) <= width:
            return name
    return ELIDED + name[len(name) - width + 1:]


def short_site(site, width=WIDTH):
    """A creation or call site ('file.c:42', 'FUNCTION in LIBRARY') with
    its function shortened (short_function)."""
    if not site:
        return site
    function, sep, library = site.rpartition(" in ")
    if sep and library and " " not in library:
        return "%s in %s" % (short_function(function, width), library)
    return short_function(site, width)


def _groups(name):
    """(start, end, opener, depth) of every bracketed group of name, end
    past its closer, depth the number of groups around it but a lambda's
    braces; brackets of an operator's name are no group.  Unbalanced text ends the scan."""
    out, stack, k = [], [], 0
    while k < len(name):
        op = _OPERATOR.match(name, k) if name[k] == "o" and \
            (k == 0 or not (name[k - 1].isalnum() or name[k - 1] == "_")) else None
        if op:
            k = op.end()
            continue
        char = name[k]
        if char in _OPENERS:
            stack.append((k, char))
        elif stack and char == _OPENERS[stack[-1][1]]:
            start, opener = stack.pop()
            out.append((start, k + 1, opener, sum(1 for _, o in stack if o != "{")))
        elif char in ")]}":
            return out          # a closer without its opener: stop here
        k += 1
    return out


def _replaced(name, spans):
    """name with each (start, end) span (disjoint) replaced by its
    brackets around ELIDED."""
    out, last = [], 0
    for start, end in sorted(spans):
        out.append(name[last:start + 1] + ELIDED + name[end - 1])
        last = end
    out.append(name[last:])
    return "".join(out)


def _outermost(spans):
    """The spans not inside another one of spans."""
    kept = []
    for start, end in sorted(spans):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept


def _templates(name):
    """Every outermost template argument list elided: 'f<…>(ArrayRef<…>)'."""
    spans = [(s, e) for s, e, opener, _ in _groups(name) if opener == "<" and e - s > 2]
    return _replaced(name, _outermost(spans))


def _parameters(name):
    """Every parameter list outside any bracket (a lambda's braces aside)
    elided: 'f(…) const', '{lambda(…)#1}' (an empty list and
    '(anonymous namespace)' stay)."""
    spans = [(s, e) for s, e, opener, depth in _groups(name)
             if opener == "(" and depth == 0 and e - s > 2 and name[s:e] != _ANONYMOUS]
    return _replaced(name, spans)
