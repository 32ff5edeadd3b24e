"""Tests of the web layer: the page, in headless Chromium."""
