"""Front ends that talk to gdb over MI: the relay between a front end and
gdb (gdb-free) and the MI command it asks gdb for a printer's summary."""
