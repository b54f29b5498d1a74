"""pegsearch: exhaustive breadth-first search of peg-solitaire boards, one MapReduce job per level."""

__version__ = "0.1.0"
