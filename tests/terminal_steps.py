"""A dialogue with a program in a terminal (tests/frontends/test_fe_tui.py's
Tmux), written as a table: keys typed, then what must come on screen."""


def converse(tmux, steps, timeout=30):
    """For each (keys, text) of steps: type the keys (tmux key names such as
    "Enter", "Tab", "C-c"; none to only wait), then wait until text is on
    the screen.  Returns the last screen."""
    screen = None
    for keys, text in steps:
        if keys:
            tmux.keys(*keys)
        screen = tmux.wait_for(text, timeout)
    return screen
