"""The `mpipp` commands on RMA windows and groups, one module each, named for
the command: `mpipp win`.  How a window or group is shown is describe.py of
the package."""
