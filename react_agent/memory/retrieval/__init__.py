"""What a question finds in the memory: tokens, BM25, vectors, the prompt block, verified ones."""
