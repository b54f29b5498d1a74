"""The board layer: a board's geometry (holes, jumps, symmetries), its files, the search
specification, and pictures of positions. Everything above builds on these; nothing here knows how
a search is computed or stored."""
