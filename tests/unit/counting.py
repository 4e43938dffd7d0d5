"""Counting calls: the unit tests bound the model's work by what it calls,
never by the clock."""


def counting(monkeypatch, owner, name):
    """Counts the calls of owner.name (a function or method) in calls[0]."""
    calls = [0]
    original = getattr(owner, name)

    def counted(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls
