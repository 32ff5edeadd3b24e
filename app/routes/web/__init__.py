"""What a browser loads: the progress page, its static files, the embeddable chat."""
