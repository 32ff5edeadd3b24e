"""Measuring: closed-loop levels, their statistics, process sampling and a quiet machine."""
