"""What the model is sent: the prompts, the turns it sees, the prefix, each question's context."""
