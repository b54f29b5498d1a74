"""Answers: what a stored run says (verdict, finishing holes, winnable positions, a solution), the
start-hole survey, run checks, and the documents the faces show. The command line and the service
both call this layer; neither keeps its own copy of it."""

# Boards with more holes than this are surveyed by the solver unless asked otherwise (answers.door):
# the largest searched whole here has 37. Here, below every face, since the command line's parser
# names it in its help without importing the door (and numba with it).
SURVEY_WHOLE = 40
# The time bound of each (start, finish) pair of a survey by the solver, unless asked otherwise.
PAIR_SECONDS = 60
