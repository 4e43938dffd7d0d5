"""The console the user types into (runs on the user's host): main.py
(mpipp-job's entry point: options, the job opened, the commands given, the
loop), console.py (the Console: sessions, output, one line run), the
console's own commands (commands.py's table; control.py, reports.py,
hang.py), loop.py (readline), options.py, launch.py (the ways into a job)."""
