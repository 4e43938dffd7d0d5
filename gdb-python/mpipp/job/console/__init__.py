"""The console the user types into (runs on the user's host)."""
