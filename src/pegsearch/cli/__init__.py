"""The command line: arguments in, text or JSON out; the answers come from `pegsearch.answers`."""
