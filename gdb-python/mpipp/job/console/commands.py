"""The console's own commands, in one table (any other line goes to the
gdb of every rank in focus)."""

from . import control, hang, reports


def cmd_help(console, arg):
    """help [COMMAND]: the console's commands; anything else is sent to gdb."""
    if arg and arg.split()[0] in console.commands:
        console.write(console.commands[arg.split()[0]].__doc__)
        return
    if arg:
        console.forward("help " + arg)
        return
    seen = []
    for func in console.commands.values():
        if func not in seen:
            seen.append(func)
    console.write("Console commands (anything else goes to the gdb of every rank in focus):\n" +
                  "\n".join("  " + f.__doc__.split("\n")[0] for f in seen))


# (names, function) in the order `help` lists them; a command's docstring
# is its help, its first line the summary.
TABLE = (
    (("focus",), control.cmd_focus),
    (("on",), control.cmd_on),
    (("ranks", "status"), control.cmd_ranks),
    (("stacks",), reports.cmd_stacks),
    (("calls",), reports.cmd_calls),
    (("waits",), reports.cmd_waits),
    (("check",), reports.cmd_check),
    (("until-hang",), hang.cmd_until_hang),
    (("rma",), reports.cmd_rma),
    (("diff",), reports.cmd_diff),
    (("reconnect",), control.cmd_reconnect),
    (("interrupt",), control.cmd_interrupt),
    (("wait",), control.cmd_wait),
    (("time",), control.cmd_time),
    (("shell", "!"), control.cmd_shell),
    (("echo",), control.cmd_echo),
    (("merge",), control.cmd_merge),
    (("detach",), control.cmd_detach),
    (("quit", "q", "exit"), control.cmd_quit),
    (("help",), cmd_help),
)
COMMANDS = {name: function for names, function in TABLE for name in names}
