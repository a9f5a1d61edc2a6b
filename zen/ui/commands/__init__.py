"""The shell's slash commands, one module per family; `dispatch` looks them up and runs them."""
