"""gdb commands: the 'set mpipp' / 'show mpipp' settings, and subcommand
abbreviations that are words of the command instead."""

import re

import gdb


def words_over_abbreviations(prefix, target):
    """Makes every abbreviation of a subcommand of `prefix` a word for
    `target` instead: gdb runs 'mpipp v buf' as 'mpipp view buf' (a unique
    prefix names a subcommand) and refuses 'mpipp l buf' as ambiguous, but
    the user meant the variables v and l.  gdb prefers a command's exact
    name to an abbreviation, so each proper prefix of a subcommand name
    becomes an alias 'PREFIX p' = 'TARGET -- p', deprecated to keep it out
    of 'help'.  gdb warns once about a deprecated command, when it is
    looked up: that once is here, in 'help', whose output is captured.
    Call after every subcommand exists."""
    listing = gdb.execute("help %s" % prefix, to_string=True)
    names = set(re.findall(r"^%s ([\w-]+)" % re.escape(prefix), listing, re.M))
    words = {name[:n] for name in names for n in range(1, len(name))} - names
    for word in sorted(words):
        alias = "%s %s" % (prefix, word)
        gdb.execute("alias -a -- %s = %s -- %s" % (alias, target, word), to_string=True)
        gdb.execute("maintenance deprecate %s" % alias, to_string=True)
        gdb.execute("help %s" % alias, to_string=True)


_settings = []


class _SettingsPrefix(gdb.Command):
    """The 'set mpipp' / 'show mpipp' prefix; 'show mpipp' alone lists every setting."""

    def __init__(self, word):
        self.__doc__ = "%s mpipp settings." % word.capitalize()
        self.word = word
        super().__init__("%s mpipp" % word, gdb.COMMAND_DATA, gdb.COMPLETE_COMMAND, True)

    def invoke(self, arg, from_tty):
        if self.word == "set" or arg.strip():
            raise gdb.GdbError("mpipp: '%s mpipp' takes a setting: %s"
                               % (self.word, ", ".join(sorted(_settings))))
        for name in sorted(_settings):
            text = gdb.execute("show mpipp %s" % name, to_string=True)
            gdb.write("mpipp %s:  %s" % (name, text))


def add_setting(name, make):
    """The gdb parameter 'mpipp NAME' that make() creates, under the
    'set mpipp' / 'show mpipp' prefixes (made once, here)."""
    if not _settings:
        _SettingsPrefix("set")
        _SettingsPrefix("show")
    _settings.append(name)
    return make()
