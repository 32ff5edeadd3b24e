"""Named sources (DATA_SOURCES) and the federation: one DuckDB attaching them read-only.

specs reads DATA_SOURCES; sources is the one SQLDatabase of every source's `source.table`
names, routing a statement to its one source or to the federation (engine), which
attaches each source (attach: the scanners loaded from their packages' files);
statements tells which sources a statement reads and translates it for one.
"""
