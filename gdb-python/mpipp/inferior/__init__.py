"""The gdb layer every mpipp package shares (it imports gdb).

  memory.py       the inferior's memory, and every cache mpipp keeps of it
                  with its lifetime (one stop, or until objfiles change)
  symbols.py      where a symbol is, where a code address is
  expressions.py  user expressions, evaluated without side effects
  output.py       print limits, batched output, JSON, one-line errors
  printing.py     the "mpipp" pretty-printer collection and its registration,
                  the small printers every package shares
  commands.py     gdb commands: the Command base every mpipp command is made
                  of, the Setting base and its prefix, subcommand words
"""
