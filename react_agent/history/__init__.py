"""Turn blocks of a conversation: recording them, showing an index, searching and reading them."""
