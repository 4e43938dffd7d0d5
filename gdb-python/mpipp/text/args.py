"""Splitting a command line into gdb expressions, options and a format.

gdb expressions may contain spaces inside brackets and quotes
(`mpipp types[k + 1] &buf[2 * n]`), so words are split on white space at
bracket depth zero only.  Options (`-json`, `-long`, ...) and a print-style
format (`/x`) come before the positional words.
"""

OPEN = "([{"
CLOSE = ")]}"
QUOTES = "'\""
# Lines without these split on white space alone (str.split: the character
# loop below costs ~10 µs for a file name, at every mpipp-job document).
GROUPING = frozenset(OPEN + CLOSE + QUOTES)
FORMAT_LETTERS = "xduotacfszr"


class ArgError(Exception):
    """A malformed command line (one-line message)."""


def split_words(text):
    if GROUPING.isdisjoint(text):
        return text.split()
    words, current, depth, quote = [], [], 0, None
    for ch in text:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in QUOTES:
            quote = ch
        elif ch in OPEN:
            depth += 1
        elif ch in CLOSE:
            depth -= 1
            if depth < 0:
                raise ArgError("unbalanced '%s' in %r" % (ch, text))
        elif ch.isspace() and depth == 0:
            if current:
                words.append("".join(current))
                current = []
            continue
        current.append(ch)
    if quote or depth:
        raise ArgError("unbalanced brackets or quotes in %r" % text)
    if current:
        words.append("".join(current))
    return words


def parse(text, options=()):
    """(set of options given, format letter or None, positional words)."""
    return parse_valued(text, options)[:3]


def parse_valued(text, options=(), valued=()):
    """parse() with options that take a value (`-as double`): (set of
    options given, format letter or None, positional words, {option: value})."""
    given, fmt, values = set(), None, {}
    words = split_words(text or "")
    while words:
        word = words[0]
        if word in valued:
            if len(words) < 2:
                raise ArgError("option '%s' needs a value" % word)
            values[word] = words[1]
            del words[:2]
            continue
        if word == "--":
            words.pop(0)
            break
        if word.startswith("-") and word[1:2].isalpha() and "/" in word:
            # '-offsets/x': an option with a print-style format attached
            option, letters = word.split("/", 1)
            words[0:1] = [option, "/" + letters]
            continue
        if word.startswith("/") and len(word) > 1 and word[1:].isalnum():
            letters = word[1:]
            if len(letters) != 1 or letters not in FORMAT_LETTERS:
                raise ArgError("unknown format '%s' (use one of /%s)"
                               % (word, " /".join(FORMAT_LETTERS)))
            fmt = letters
        elif word.startswith("-") and word[1:2].isalpha():
            if word not in options:
                raise ArgError("unknown option '%s' (options: %s)"
                               % (word, ", ".join(sorted(set(options) | set(valued))) or "none"))
            given.add(word)
        else:
            break
        words.pop(0)
    return given, fmt, words, values


def take_valued(words, names):
    """({name: value}, other words) for options that take a value
    (`-rtol 1e-9`, `-svg out.svg`) anywhere among words."""
    values, rest, k = {}, [], 0
    while k < len(words):
        if words[k] in names:
            if k + 1 == len(words):
                raise ArgError("option '%s' needs a value" % words[k])
            values[words[k]] = words[k + 1]
            k += 2
        else:
            rest.append(words[k])
            k += 1
    return values, rest
