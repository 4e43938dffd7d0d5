"""mpipp-job, the whole-job console: plain Python outside gdb, driving one
gdb per rank over GDB/MI.  By where each part runs (as STAT names its
front end, daemons and filters):

  console/   the console the user types into: its loop, its commands, its
             options, and how it launches or attaches to a job
  link/      what carries commands and answers: GDB/MI sessions, the wire
             between hosts, the tree of back-ends that merges on the way up
  node/      what runs next to the ranks, on compute hosts (standard library
             and link/ only): the per-rank launcher, the back-end, memory peeks
  analysis/  what the console concludes from the ranks' answers (gdb-free):
             the world, wait-for graph, type checks, merged output, stacks
"""
