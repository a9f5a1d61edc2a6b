"""How an agent and its model exchange tool use: native tool calls, calls written as text, and
edit blocks for models that cannot call tools."""
