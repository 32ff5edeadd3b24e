"""The ReAct graph: state, nodes, prompts, history trimming and the chat model."""
