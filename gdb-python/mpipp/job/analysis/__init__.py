"""What the console concludes from the ranks' answers: gdb-free, unit-tested."""
