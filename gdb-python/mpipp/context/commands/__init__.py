"""The `mpipp` commands on the communication context, one module each, named
for the command: `mpipp calls`, `mpipp requests`, `mpipp request REQ`,
`mpipp context` (and its MI form -mpipp-context-json), `mpipp comms`.
How a call is described is calls.py of the package, the `mpipp context
-json` document its document.py."""
