"""gdb commands: the base every `mpipp` command is made of, the 'set mpipp' /
'show mpipp' settings, and subcommand abbreviations that are words of the
command instead.

A command declares what its line takes and answers with what it has to
say; the base parses the line, writes the answer as text or, with -json, as
one JSON document, and turns every error into one line 'mpipp: ...':

    class WhereCommand(Command):
        '''Find the element an address belongs to: mpipp where [-json] TYPE BASE ADDR [COUNT]
        ...'''
        name = "mpipp where"
        takes_json = True
        arity = (3, 4)

        def answer(self, args):
            ...
            where = locate(dt, count, address - base)
            return Answer(lambda: describe.where_json(where, address - base),
                          lambda: [describe.where_text(where, address, base)])

Each side of the answer is a function, called only when that side is
written: `mpipp TYPE BUF` over 10**8 elements renders nothing until it
prints, and then as it prints.
"""

import re
from typing import Callable, NamedTuple, Optional

import gdb

from ..text import args as argparse_
from . import output

JSON = "-json"


class Args(NamedTuple):
    """A command line, parsed as its command takes it."""
    options: set                # the options given ('-all', '-long')
    fmt: Optional[str]          # a print format letter ('x' of /x), or None
    words: list                 # the positional words (gdb expressions, file names)
    values: dict                # {option: its value} of options with one ('-as': 'double')
    json: bool                  # -json: the answer's document is asked for, not its text
    json_file: Optional[str]    # -json FILE: the file the document goes to


class Text:
    """Text already made, in pieces that carry their own newlines: lines
    rendered in blocks, or a document serialized as it is built (`mpipp
    -json` of 10**8 elements starts printing at once).  Written as the
    pieces come."""

    def __init__(self, pieces):
        self.pieces = pieces


class Answer(NamedTuple):
    """What a command has to say, each side made only when it is written
    (a command never builds the document it was not asked for, nor the
    text): document() gives the -json document (a JSON value, or Text),
    lines() the lines (any iterable, or Text).  None: no such side."""
    document: Optional[Callable] = None
    lines: Optional[Callable] = None


class UsageError(Exception):
    """A command line the command does not take: the base says its usage."""


class Command(gdb.Command):
    """An mpipp command.  A subclass declares

        name        'mpipp info'
        options     the options it takes alone ('-all')
        valued      the options that take a value ('-as')
        takes_json  whether -json asks for its document instead of its text
        json_file   whether -json may name a FILE to write the document to
                    (after the positional words: 'mpipp context -json FILE')
        arity       the fewest and the most positional words
        usage       its usage line; by default what 'help' says of it after
                    ': ' on the first line
        completer   how gdb completes its words (gdb.COMPLETE_*)
        prefix      whether it has subcommands

    and answer(args) -> Answer.  answer() and what it calls raise one-line
    errors (MpippError, ArgError, gdb.error: the base says 'mpipp: ' before
    them) or UsageError."""

    name = None
    options = ()
    valued = ()
    takes_json = False
    json_file = False
    arity = (0, 0)
    usage = None
    completer = gdb.COMPLETE_EXPRESSION
    prefix = False

    def __init__(self):
        super().__init__(self.name, gdb.COMMAND_DATA, self.completer, self.prefix)

    @output.one_line_errors
    def invoke(self, arg, from_tty):
        try:
            args = self.parse(arg)
            answer = self.answer(args)
        except UsageError:
            raise argparse_.ArgError("usage: " + self.usage_line()) from None
        write_answer(answer, args)

    def parse(self, arg):
        """The command line as Args (ArgError, UsageError when it is none
        this command takes)."""
        options = self.options + (JSON,) if self.takes_json else self.options
        given, fmt, words, values = argparse_.parse_valued(arg, options, self.valued)
        as_json = self.takes_json and JSON in given
        if as_json:
            given.remove(JSON)
        fewest, most = self.arity
        json_file = None
        if as_json and self.json_file and len(words) == most + 1:
            json_file = words.pop()
        if not fewest <= len(words) <= most:
            raise UsageError()
        return Args(given, fmt, words, values, as_json, json_file)

    def usage_line(self):
        return self.usage or self.__doc__.split("\n", 1)[0].split(": ", 1)[1]


def write_answer(answer, args):
    """The document of an answer with -json (to its file, if one is named), else its lines."""
    if args.json:
        document = answer.document()
        if isinstance(document, Text):
            output.write_json_pieces(document.pieces, args.json_file)
        else:
            output.write_json(document, args.json_file)
    elif answer.lines is not None:
        lines = answer.lines()
        if isinstance(lines, Text):
            output.write_text(lines.pieces)
        else:
            output.write_lines(lines)


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


# {name: Setting} of the settings register() made
_settings = {}


class SettingsPrefix(gdb.Command):
    """The 'set mpipp' / 'show mpipp' prefix; 'show mpipp' alone lists every setting."""

    def __init__(self, word):
        self.__doc__ = "%s mpipp settings." % word.capitalize()
        self.word = word
        super().__init__("%s mpipp" % word, gdb.COMMAND_DATA, gdb.COMPLETE_COMMAND, True)

    @output.one_line_errors
    def invoke(self, arg, from_tty):
        if self.word == "set" or arg.strip():
            raise argparse_.ArgError("'%s mpipp' takes a setting: %s"
                                     % (self.word, ", ".join(sorted(_settings))))
        for name in sorted(_settings):
            text = gdb.execute("show mpipp %s" % name, to_string=True)
            gdb.write("mpipp %s:  %s" % (name, text))


def settings_prefixes():
    """'set mpipp' and 'show mpipp', which every Setting is made under."""
    SettingsPrefix("set")
    SettingsPrefix("show")


class Setting(gdb.Parameter):
    """The setting 'mpipp NAME' ('set mpipp NAME', 'show mpipp NAME').  A
    subclass declares name, kind (gdb.PARAM_*), default, set_doc, show_doc
    and shown (what 'show' says, %s the value); current() is its value."""

    name = None
    kind = None
    default = None
    shown = None

    def __init__(self):
        super().__init__("mpipp " + self.name, gdb.COMMAND_DATA, self.kind)
        self.value = self.default
        _settings[self.name] = self

    @classmethod
    def current(cls):
        """The setting's value; its default until register() made it."""
        made = _settings.get(cls.name)
        return cls.default if made is None else made.value

    def get_set_string(self):
        return ""

    def get_show_string(self, svalue):
        return self.shown % svalue
