"""The `mpipp` commands on datatypes and buffers, one module each, named for
the command (`mpipp layout` is layout.py; `mpipp` itself and `mpipp decode`
are decode.py).  Each is a Command (inferior/commands.py): it declares its
line and answers; the base parses, writes and turns errors into one line."""
