"""The `mpipp` commands on MPI-IO, one module each, named for the command:
`mpipp file`, `mpipp view`.  How a file is shown is describe.py of the
package."""
