"""Answers: what a stored run says (verdict, finishing holes, winnable positions, a solution), the
start-hole survey, run checks, and the documents the faces show. The command line and the service
both call this layer; neither keeps its own copy of it."""
