"""`mpipp calls`: the MPI call each thread is in, its buffers decoded."""

import gdb

from ... import views
from ...inferior.commands import Answer, Command
from ..calls import call_text, decode_lines, json_call, thread_map, waited_requests
from ...text.names import short_site
from ..stacks import call_site_text, in_wrappers

PROBE_TEXT = ("inside libmpireg's start-up probe of MPI_Init (its own MPI_Issend, MPI_Irecv "
              "and MPI_Ibarrier calls ask MPI which request handles it completes at once; "
              "docs/context.md)")


class CallsCommand(Command):
    """Show the MPI call each thread is in: mpipp calls [-json] [-brief]

For every thread: the MPI function it is inside, with its buffers, counts,
datatypes, peer, tag and communicator as the program passed them, then each
buffer decoded through the call's datatype ('set print elements' applies).
A Wait/Test call also lists the pending requests it waits for.  -brief
leaves out the decoded buffers.

Example:
  (gdb) mpipp calls
  thread 1 (LWP 4242): MPI_Recv(buf=0x7ffd..., count=2, datatype=halo_t, source=1, tag=7, comm=MPI_COMM_WORLD)
      at deadlock.c:31
      buf = halo_t × 2 at 0x7ffd...:
        [0][0][0] = -1
        ..."""

    name = "mpipp calls"
    options = ("-brief",)
    takes_json = True
    completer = gdb.COMPLETE_NONE

    def answer(self, args):
        view = views.context.require()
        lwps = thread_map()
        slots = {t.tid: t for t in view.threads()}
        wrappers = in_wrappers(view, [lwp for lwp in lwps
                                      if lwp not in slots or not slots[lwp].active])
        threads = [(num, lwp, slots.get(lwp), wrappers.get(lwp))
                   for lwp, num in sorted(lwps.items(), key=lambda kv: kv[1])]
        # whole before written, as every listing: an error leaves no half of one
        return Answer(lambda: {"threads": list(thread_rows(view, threads))},
                      lambda: list(thread_lines(view, threads, "-brief" in args.options)))


def thread_rows(view, threads):
    """A JSON row per (gdb thread number, LWP, slot, call entering a wrapper)."""
    for num, lwp, slot, entering in threads:
        row = {"thread": num, "lwp": lwp, "in_mpi": False}
        if slot is None or not slot.active:
            if entering is not None:
                func, args, site = entering
                row["in_mpi"] = True
                row["in_wrapper"] = {"function": func, "args": dict(args), "site": site}
            yield row
            continue
        row["in_mpi"] = True
        if slot.torn:
            row["torn"] = True
            yield row
            continue
        call = slot.call
        if call.probe:
            yield dict(row, probe=True)
            continue
        site = call_site_text(lwp, call, full=True)
        if site:
            row["site"] = site[len("at "):]
        row["call"] = json_call(view, call)
        row["waits_for"] = [{"index": k, "request": r.handle} for k, r in
                            waited_requests(view, call)]
        yield row


def thread_lines(view, threads, brief):
    """The lines of each (gdb thread number, LWP, slot, call entering a wrapper)."""
    for num, lwp, slot, entering in threads:
        head = "thread %d (LWP %d): " % (num, lwp)
        if slot is None or not slot.active:
            if entering is None:
                yield head + "not inside an MPI call"
                continue
            func, args, site = entering
            yield head + ("%s(%s), in libmpireg's wrapper outside MPI ('break P%s' stops once "
                          "per call, inside MPI)" % (func, ", ".join("%s=%s" % a for a in args),
                                                     func))
            if site:
                yield "    at " + short_site(site)
            continue
        if slot.torn:
            yield head + "entering an MPI call (its record is being written; step and retry)"
            continue
        call = slot.call
        if call.probe:
            yield head + PROBE_TEXT
            continue
        yield head + call_text(view, call)
        site = call_site_text(lwp, call)
        if site:
            yield "    " + site
        for k, r in waited_requests(view, call):
            yield "    waits for [%d] request 0x%x: %s %s" % (k, r.handle, call_text(view, r.call),
                                                          r.status)
        if not brief:
            yield from decode_lines(view, call)
